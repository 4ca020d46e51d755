import { A2A_TASKS_TABLE, ACCESS_TABLE, NONCES_TABLE, RELAYER_LEASES_TABLE, SETTLEMENTS_TABLE } from '../contract/tables';
import { SALE_WRITER, type DomainInfra } from '../contract/infra';

/** MCP's unlock tool settles like POST /api/pay (ledger, packs, licenses, confirmations, mandates); A2A keeps tasks; unlocks answer signed receipts and the card is signed, with the service key. */
export const infra: DomainInfra = {
  tables: [
    // MCP's unlock claims, a tallied change; a card sale's license is checked against its sale.
    ...SALE_WRITER,
    { table: A2A_TASKS_TABLE.logicalName, access: 'readWrite' },
    { table: NONCES_TABLE.logicalName, access: 'readWrite' },
    // MCP's unlock settles under mandates (their spend) and its access tools read wallets' items.
    { table: ACCESS_TABLE.logicalName, access: 'readWrite' },
    // MCP's unlock_skill and A2A's buy settle x402 v2 authorizations as POST /api/pay does.
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
  signsWithServiceKey: true,
};
