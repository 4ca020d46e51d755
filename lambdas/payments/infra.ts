import { LEDGER_TABLE, NONCES_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/**
 * Payments claims transfers in the ledger, unlocks sealed packs, signs licenses and starts
 * confirmation loops, whose task (confirm-handler.ts) it owns; /api/ready describes every table.
 */
export const infra: DomainInfra = {
  tables: [
    { table: LEDGER_TABLE.logicalName, access: 'readWrite' },
    // Wallet signatures are single-use: their nonces are recorded.
    { table: NONCES_TABLE.logicalName, access: 'readWrite' },
  ],
  describesAllTables: true,
  data: ['catalog', 'sealed'],
  licenseKey: true,
  startsConfirmations: true,
  confirmationTask: 'confirm-handler.ts',
};
