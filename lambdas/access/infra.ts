import { ACCESS_TABLE, NONCES_TABLE, RELAYER_LEASES_TABLE, SETTLEMENTS_TABLE } from '../contract/tables';
import { SALE_WRITER, type DomainInfra } from '../contract/infra';

/**
 * Access unlocks packs (it settles through payments: ledger, licenses, confirmation loops) and
 * keeps what belongs to a wallet (mandates, subscriptions, meters); wallet signatures use nonces.
 */
export const infra: DomainInfra = {
  tables: [
    // Claims (unlocks, subscription periods, meter top-ups) are tallied changes; a card sale's license is checked against its sale.
    ...SALE_WRITER,
    { table: NONCES_TABLE.logicalName, access: 'readWrite' },
    { table: ACCESS_TABLE.logicalName, access: 'readWrite' },
    // x402 v2: each signed authorization is claimed, stored signed, and its gas recorded.
    { table: SETTLEMENTS_TABLE.logicalName, access: 'readWrite' },
    { table: RELAYER_LEASES_TABLE.logicalName, access: 'readWrite' },
  ],
  data: ['catalog', 'sealed'],
  // Delivers a pack version by the digest a receipt names: the write-once versions bucket, read only.
  packVersions: 'read',
  licenseKey: true,
  readsChain: true,
  startsConfirmations: true,
  relaysPayments: true,
  // Every sale it answers (unlocks, subscription periods, meter top-ups) carries a signed receipt.
  signsWithServiceKey: true,
};
