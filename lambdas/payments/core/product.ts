/**
 * What a transfer can buy, with its price from the one price source (the catalog and
 * catalog/pricing.json), never from the client: a skill's pack, a subscription period, or
 * credit on a prepaid meter. Every kind is verified and claimed by the same `settle`.
 */
import type { Catalog } from '../../catalog';
import type { CatalogEntry } from '../../contract/catalog-data';
import type { LedgerKind } from '../ports';

/** The product id of every meter top-up: one meter per wallet. */
export const METER_PRODUCT = 'meter';

export interface Product {
  kind: LedgerKind;
  /** Skill id, plan id or `meter`; stored as the ledger row's `skill`. */
  id: string;
  /** Atomic USDC the transfer must carry at least (for a top-up, the minimum; the whole transfer is credited). */
  price: string;
}

/** A skill's unlock at its challenge price. */
export const skillProduct = (entry: CatalogEntry): Product => ({ kind: 'unlock', id: entry.id, price: entry.x402.amount });

/** A product by kind and id from the price source; undefined when the id names nothing of that kind. */
export function productFor(catalog: Catalog, kind: LedgerKind | undefined, id: string): Product | undefined {
  switch (kind ?? 'unlock') {
    case 'unlock': {
      const entry = catalog.get(id);
      return entry ? skillProduct(entry) : undefined;
    }
    case 'subscription': {
      const plan = catalog.pricing.plans.find((p) => p.id === id);
      return plan ? { kind: 'subscription', id: plan.id, price: plan.amount } : undefined;
    }
    case 'meter_top_up':
      return id === METER_PRODUCT ? { kind: 'meter_top_up', id, price: catalog.pricing.meterMinTopUp } : undefined;
  }
}

/** What a claimed row paid for, as a product (rows older than kinds are unlocks). */
export const rowKind = (row: { kind?: LedgerKind }): LedgerKind => row.kind ?? 'unlock';
