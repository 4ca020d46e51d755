import type { CatalogEntry } from '#shared/catalog-types';
import { links } from './links';

/** A skill as shelves and judge lists show it: price and every link an agent needs next. */
export function skillCard(e: CatalogEntry, base: string) {
  const s = links(base).skill(e.id);
  return { skill_id: e.id, name: e.name, category: e.category, summary: e.summary, price_usd: e.price_usd, price_label: e.price_label, regular_price_usd: e.regular_price_usd, amount: e.x402.amount, outline: s.outline, sample: s.sample, cycle: s.cycle, pay: s.challenge };
}
