import { LICENSE_KEY_ROTATION_DAYS, RECONCILE_EVERY_MINUTES, TALLY_FOLD_EVERY_MINUTES } from '../contract/schedules';
import { NONCES_TABLE, SETTLEMENTS_TABLE } from '../contract/tables';
import { SALE_WRITER, type DomainInfra } from '../contract/infra';

/**
 * Payments claims transfers in the ledger (a tallied change), unlocks sealed packs, signs
 * licenses and starts confirmation loops, whose task (confirm-handler.ts) it owns; it also owns
 * the tally task (tally-handler.ts): the scheduled fold and the daily reconcile, and the
 * license key's rotation (license-rotation-handler.ts), which Secrets Manager runs. /api/ready
 * describes every table.
 */
export const infra: DomainInfra = {
  tables: [
    ...SALE_WRITER,
    // Wallet signatures are single-use: their nonces are recorded.
    { table: NONCES_TABLE.logicalName, access: 'readWrite' },
    // x402 v2: each signed authorization is claimed, stored signed, and its gas recorded.
    { table: SETTLEMENTS_TABLE.logicalName, access: 'readWrite' },
  ],
  describesAllTables: true,
  data: ['catalog', 'sealed'],
  licenseKey: true,
  readsChain: true,
  startsConfirmations: true,
  relaysPayments: true,
  confirmationTask: 'confirm-handler.ts',
  licenseKeyRotation: { entry: 'license-rotation-handler.ts', everyDays: LICENSE_KEY_ROTATION_DAYS },
  scheduledTask: {
    entry: 'tally-handler.ts',
    schedules: [
      {
        id: 'TallyFold',
        everyMinutes: TALLY_FOLD_EVERY_MINUTES,
        input: { task: 'fold' },
        description: 'Folds journaled changes an interrupted writer left into the tallies',
      },
      {
        id: 'TallyReconcile',
        everyMinutes: RECONCILE_EVERY_MINUTES,
        input: { task: 'reconcile' },
        description: 'Recounts every ledger row and card sale and compares the tallies',
      },
    ],
  },
};
