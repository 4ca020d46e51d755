/**
 * The ledger function's composition, and the stores other functions read the ledger through (by
 * the face's `*FromEnv`): the only file of the domain that names adapters, loaded with `import()`
 * on first use so a cold start that does not touch the ledger does not parse them.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { catalogFromEnv } from '../catalog';
import { readConfigFromEnv } from '../platform/config';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { dynamoCardSales } from './adapters/dynamo-card-sales';
import { dynamoCounters } from './adapters/dynamo-counters';
import { dynamoLedger } from './adapters/dynamo-ledger';
import { streamChanges } from './adapters/stream-changes';
import { foldBatch, type FoldSummary } from './fold';
import type { CardSales, CounterStore, Figures, Ledger, ProofPorts } from './ports';
import type { ReconcilePorts } from './reconcile';

/** The proof ledger in DynamoDB: a claim is one conditional write; the figures follow from its stream. */
export const ledgerFromEnv = (): Ledger => dynamoLedger(dynamoClient());
/** Card sales in DynamoDB: recording one is one conditional write. */
export const cardSalesFromEnv = (): CardSales => dynamoCardSales(dynamoClient());
/** The figures (counter items), for every domain that reports a number. */
export const figuresFromEnv = (): Figures => dynamoCounters(dynamoClient());
const countersFromEnv = (): CounterStore => dynamoCounters(dynamoClient());

/** The fold of one stream batch (fold-handler.ts). */
export function foldFromEnv(): (records: readonly DynamoDBRecord[], shard: { streamArn: string; shardId: string }) => Promise<FoldSummary> {
  const counters = countersFromEnv();
  return (records, shard) => foldBatch(streamChanges(records), shard, counters);
}

/** What the reconcile job reads and compares (reconcile-handler.ts, `npm run reconcile`). */
export const reconcilePortsFromEnv = (): ReconcilePorts => ({
  ledger: ledgerFromEnv(),
  cardSales: cardSalesFromEnv(),
  counters: countersFromEnv(),
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
});

/** The ledger function's ports (GET /api/proof). */
export async function proofPortsFromEnv(): Promise<ProofPorts> {
  return { ledger: ledgerFromEnv(), figures: figuresFromEnv(), catalog: await catalogFromEnv(), config: readConfigFromEnv().config };
}
