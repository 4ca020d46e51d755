import { CHECKOUT_TABLE } from '../contract/tables';
import { SALE_WRITER, type DomainInfra } from '../contract/infra';

/**
 * Checkout keeps its sessions, records card sales (through payments) and delivers their packs
 * with licenses; Stripe's keys come from the stack's Stripe secret.
 */
export const infra: DomainInfra = {
  tables: [
    { table: CHECKOUT_TABLE.logicalName, access: 'readWrite' },
    // Recording a card sale is a tallied change.
    ...SALE_WRITER,
  ],
  data: ['catalog', 'sealed'],
  // Delivers a pack version by the digest a receipt names: the write-once versions bucket, read only.
  packVersions: 'read',
  licenseKey: true,
  stripeKeys: true,
  // A card sale's delivery carries a signed receipt.
  signsWithServiceKey: true,
};
