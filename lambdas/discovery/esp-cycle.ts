/**
 * The ESP (Evaluate, Settle, Prove) cycle of one skill, composed from the catalog, the
 * challenge builder and the ledger: every number in it is read from those, none is made up.
 */
import { chainLabel } from '../contract/networks';
import { links } from '../contract/links';
import { absoluteEntry, type Catalog } from '../catalog';
import type { CatalogEntry } from '../contract/catalog-data';
import { challengeable, type MarketConfig } from '../contract/settings';
import { publicRow, unlockFigures, type Figures, type Ledger } from '../ledger';
import { buildChallenge } from '../payments';

export const ESP_PROTOCOL_VERSION = '1.0.0';

export interface EspCyclePorts {
  catalog: Catalog;
  config: MarketConfig;
  ledger: Pick<Ledger, 'recent'>;
  figures: Pick<Figures, 'totals'>;
}

export async function espCycle(entry: CatalogEntry, ports: EspCyclePorts, baseUrl: string) {
  const abs = absoluteEntry(entry, baseUrl);
  const s = links(baseUrl).skill(entry.id);
  const meta = ports.catalog.packMeta(entry.id)!;
  const sound = challengeable(ports.config);
  const [totals, page] = await Promise.all([ports.figures.totals(), ports.ledger.recent(20, entry.id)]);
  const confirmed = unlockFigures(totals).perSkill[entry.id] ?? 0;
  const rows = page?.rows ?? [];
  return {
    ok: true as const,
    protocol: 'ESP',
    protocol_version: ESP_PROTOCOL_VERSION,
    skill_id: entry.id,
    name: entry.name,
    evaluate: {
      cost: 'free',
      outline: abs.outline,
      sample: abs.sample,
      pack: {
        file_count: meta.file_count,
        total_bytes: meta.total_bytes,
        files: meta.files,
        seal: meta.seal,
        metadata: s.packs,
      },
      challenge_shape: sound ? buildChallenge(entry, ports.config, baseUrl) : null,
    },
    settle: {
      cost: `${entry.price_label} in USDC on ${chainLabel(ports.config.network)}`,
      amount: entry.x402.amount,
      price_usd: entry.price_usd,
      regular_price_usd: entry.regular_price_usd,
      pay_to: ports.config.treasury ?? null,
      asset: 'USDC',
      asset_contract: ports.config.assets.USDC ?? null,
      also_accepted: ports.config.assets.USDbC ? [{ asset: 'USDbC', asset_contract: ports.config.assets.USDbC }] : [],
      network: ports.config.network.name,
      network_caip2: ports.config.network.caip2,
      min_confirmations: ports.config.minConfirmations,
      challenge: abs.x402.resource,
      how: `Transfer \`amount\` to \`pay_to\`, wait for ${ports.config.minConfirmations} confirmation(s), then POST ${links(baseUrl).pay} with header X-PAYMENT: {"txHash":"0x…","skill":"${entry.id}"}.`,
    },
    prove: {
      cost: 'free',
      source_of_truth: s.proof,
      confirmed_unlocks: confirmed,
      recent_unlocks: rows.map(publicRow),
    },
  };
}
