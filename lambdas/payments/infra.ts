import { LICENSE_KEY_ROTATION_DAYS } from '../contract/schedules';
import { NONCES_TABLE, SETTLEMENTS_TABLE } from '../contract/tables';
import { SALE_WRITER, type DomainInfra } from '../contract/infra';

/**
 * Payments claims transfers in the ledger (one conditional write; the figures follow from the
 * ledger's stream), unlocks sealed packs, signs licenses and starts confirmation loops, whose task
 * (confirm-handler.ts) it owns; it also owns the license key's rotation
 * (license-rotation-handler.ts), which Secrets Manager runs. /api/ready describes every table.
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
};
