import { CARD_SALES_TABLE, CHECKOUT_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/**
 * Checkout keeps its sessions, records card sales (through payments) and delivers their packs
 * with licenses; Stripe's keys come from the stack's Stripe secret.
 */
export const infra: DomainInfra = {
  tables: [
    { table: CHECKOUT_TABLE.logicalName, access: 'readWrite' },
    { table: CARD_SALES_TABLE.logicalName, access: 'readWrite' },
  ],
  data: ['catalog', 'sealed'],
  licenseKey: true,
  stripeKeys: true,
};
