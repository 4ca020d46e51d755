import { LICENSE_KEY_ROTATION_DAYS, RELAYER_WATCH_EVERY_MINUTES, SYNTHETIC_PURCHASE_EVERY_MINUTES } from '../contract/schedules';
import { NONCES_TABLE, RELAYER_LEASES_TABLE, SETTLEMENTS_TABLE } from '../contract/tables';
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
    { table: RELAYER_LEASES_TABLE.logicalName, access: 'readWrite' },
  ],
  describesAllTables: true,
  data: ['catalog', 'sealed'],
  // Delivers a pack version by the digest a receipt names: the write-once versions bucket, read only.
  packVersions: 'read',
  licenseKey: true,
  readsChain: true,
  startsConfirmations: true,
  relaysPayments: true,
  confirmationTask: 'confirm-handler.ts',
  licenseKeyRotation: { entry: 'license-rotation-handler.ts', everyDays: LICENSE_KEY_ROTATION_DAYS },
  // The relayer's gas left and the settlements stuck in flight, published for their alarms (watch-handler.ts).
  scheduledTask: {
    entry: 'watch-handler.ts',
    readsRelayerAddress: true,
    schedules: [
      {
        id: 'RelayerBalance',
        everyMinutes: RELAYER_WATCH_EVERY_MINUTES,
        input: { task: 'relayer_balance' },
        description: "Reads the x402 relayer's ETH balance and publishes it (the RelayerBalanceLow alarm watches it)",
      },
      {
        id: 'StuckSettlements',
        everyMinutes: RELAYER_WATCH_EVERY_MINUTES,
        input: { task: 'stuck_settlements' },
        description: 'Counts the x402 settlements stuck in flight and publishes the count (the StuckSettlements alarm watches it)',
      },
    ],
  },
  // The money path checked from outside: a fresh wallet buys the canary (synthetic-handler.ts).
  syntheticPurchase: { entry: 'synthetic-handler.ts', everyMinutes: SYNTHETIC_PURCHASE_EVERY_MINUTES },
};
