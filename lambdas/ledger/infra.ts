import { RECONCILE_EVERY_MINUTES, UNMATCHED_EVERY_MINUTES } from '../contract/schedules';
import { CARD_SALES_TABLE, LEDGER_TABLE, TALLIES_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/**
 * The ledger folds the figures from the ledger's and card sales' streams (fold-handler.ts: it
 * writes the counter items only) and recounts them daily (reconcile-handler.ts: it reads every
 * record and may remove drained shards' marks from the counters).
 */
export const infra: DomainInfra = {
  tables: [
    { table: TALLIES_TABLE.logicalName, access: 'readWrite' },
    { table: LEDGER_TABLE.logicalName, access: 'read' },
    { table: CARD_SALES_TABLE.logicalName, access: 'read' },
  ],
  // The unmatched-receipts run reads the treasury's transfers (eth_getLogs).
  readsChain: true,
  streamFold: { entry: 'fold-handler.ts', tables: [LEDGER_TABLE.logicalName, CARD_SALES_TABLE.logicalName] },
  scheduledTask: {
    entry: 'reconcile-handler.ts',
    schedules: [
      {
        id: 'Reconcile',
        everyMinutes: RECONCILE_EVERY_MINUTES,
        input: { task: 'reconcile' },
        description: 'Recounts every ledger row and card sale and compares the figures',
      },
      {
        id: 'Unmatched',
        everyMinutes: UNMATCHED_EVERY_MINUTES,
        input: { task: 'unmatched' },
        description: 'Lists treasury transfers that no claim matches (money received, nothing delivered)',
      },
    ],
  },
};
