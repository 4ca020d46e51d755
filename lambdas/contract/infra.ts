/**
 * The shape of a domain's infrastructure manifest (`lambdas/<domain>/infra.ts`): what its
 * functions need from the stack. The CDK stack reads the manifests and has no branch for any
 * domain; a new domain declares its needs beside its code.
 */
import type { DataDir } from './env';
import { CARD_SALES_TABLE, LEDGER_TABLE, TALLIES_TABLE } from './tables';

/**
 * Memory of a function that does not ask for more (every API function): what the stack gives
 * it, what the local run's Lambda context reports, and what the cost figures price
 * (bench/purchase-cost.ts).
 */
export const DEFAULT_MEMORY_MB = 512;

export type TableAccess = 'describe' | 'read' | 'readWrite';

export interface TableGrant {
  table: string;
  access: TableAccess;
}

/**
 * What a function that records sales needs: it claims transfers in the ledger and records card
 * sales (one conditional write each, nothing shared), and reads the figures the fold keeps.
 */
export const SALE_WRITER: readonly TableGrant[] = [
  { table: LEDGER_TABLE.logicalName, access: 'readWrite' },
  { table: CARD_SALES_TABLE.logicalName, access: 'readWrite' },
  { table: TALLIES_TABLE.logicalName, access: 'read' },
];

/** A function run on a schedule (EventBridge Scheduler in AWS; locally on demand, through its npm script), with its input. */
export interface ScheduledRun {
  /** Construct id of the schedule, e.g. `Reconcile`. */
  id: string;
  everyMinutes: number;
  input: Readonly<Record<string, string>>;
  description: string;
}

export interface DomainInfra {
  /** Tables the domain's functions may touch (by logical name), and how; least privilege. */
  tables: readonly TableGrant[];
  /** DescribeTable on every table (readiness reports on all of them). */
  describesAllTables?: boolean;
  /**
   * Reads published pack versions from the versions bucket (issue 52): gets its name
   * (PACK_VERSIONS_BUCKET) and s3:GetObject on its objects only. Nothing can write or delete a
   * version but the deploy's publisher, and that only once per key (lib/constructs/versions-bucket.ts).
   */
  packVersions?: 'read';
  /**
   * The Lambda entry (under the domain's folder) that CloudFormation runs at every deploy whose
   * versions changed (a custom resource): it copies the versions its bundle carries (dist/versions)
   * into the versions bucket, each key once (If-None-Match: *), and never deletes one.
   */
  versionsPublisher?: { entry: string };
  /** Built data the bundle carries; the catalog is always carried. */
  data?: readonly DataDir[];
  /** Reads the license signing key (issues or verifies license tokens). */
  licenseKey?: boolean;
  /** Starts confirmation loops (gets the state machine's ARN and states:StartExecution). */
  startsConfirmations?: boolean;
  /** Reads chain 8453 (verification, settlement, signatures): gets the RPC secret, whose keyed provider URLs come before the `rpcUrls` setting. */
  readsChain?: boolean;
  /** Reads the Stripe keys (card checkout): the stack's Stripe secret, whose ARN it gets. */
  stripeKeys?: boolean;
  /**
   * Signs with the service key (sale receipts, the agent card): gets the KMS key's id, and
   * kms:Sign and kms:GetPublicKey on it only.
   */
  signsWithServiceKey?: boolean;
  /**
   * Settles x402 v2 authorizations: signs the relayer's transactions with its KMS keys, and the
   * escrow operator's (x402 `auth-capture`: authorize, capture, void, refund) with its own
   * (kms:Sign and kms:GetPublicKey only, on those keys).
   */
  relaysPayments?: boolean;
  /**
   * Reads the escrow operator's address (its KMS key's public key) without ever signing with it:
   * the `captureAuthorizer` of the `auth-capture` offers it publishes. Gets the key's id and
   * kms:GetPublicKey on it only.
   */
  readsEscrowOperatorAddress?: boolean;
  /** The Lambda entry (under the domain's folder) that the confirmation state machine invokes, if the domain owns it. */
  confirmationTask?: string;
  /**
   * The Lambda entry (under the domain's folder) that folds these tables' streams (logical names;
   * each must have `stream`): in AWS an event source mapping per table, with its retries, a
   * dead-letter queue and alarms; locally a poller of DynamoDB Local's stream calling the same handler.
   */
  streamFold?: { entry: string; tables: readonly string[] };
  /** A Lambda entry (under the domain's folder) run on schedules, with the domain's grants. */
  scheduledTask?: {
    entry: string;
    schedules: readonly ScheduledRun[];
    /**
     * It reads the relayer's addresses (the pool's KMS keys' public keys) and the escrow
     * operator's, never signs with any: the watch reports the ETH each holds for gas.
     */
    readsRelayerAddress?: boolean;
  };
  /**
   * The Lambda entry (under the domain's folder) that buys the canary end to end as an outside
   * buyer would (a fresh wallet funded from the operator's synthetic purchase secret) and checks
   * the seal and the proof ledger; it reads public HTTP and the chain only, so it gets the RPC
   * secret, the base URL and that secret, and no table or key. Scheduled where the stage says so.
   */
  syntheticPurchase?: { entry: string; everyMinutes: number };
  /** The Lambda entry Secrets Manager runs to rotate the license signing key, and how often. */
  licenseKeyRotation?: { entry: string; everyDays: number };
  /**
   * The Lambda entry Secrets Manager runs to rotate the origin secret CloudFront sends the API, and
   * how often; it may update only the distribution and that secret.
   */
  originSecretRotation?: { entry: string; everyDays: number };
}
