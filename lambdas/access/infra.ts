import { CARD_SALES_TABLE, ACCESS_TABLE, LEDGER_TABLE, NONCES_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/**
 * Access unlocks packs (it settles through payments: ledger, licenses, confirmation loops) and
 * keeps what belongs to a wallet (mandates, subscriptions, meters); wallet signatures use nonces.
 */
export const infra: DomainInfra = {
  tables: [
    { table: LEDGER_TABLE.logicalName, access: 'readWrite' },
    { table: NONCES_TABLE.logicalName, access: 'readWrite' },
    { table: ACCESS_TABLE.logicalName, access: 'readWrite' },
    // A card sale's license is checked against its sale.
    { table: CARD_SALES_TABLE.logicalName, access: 'read' },
  ],
  data: ['catalog', 'sealed'],
  licenseKey: true,
  startsConfirmations: true,
};
