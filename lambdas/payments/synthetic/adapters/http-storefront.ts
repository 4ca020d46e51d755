/**
 * What any buyer reads from the service, over HTTP through the public base URL (CloudFront in AWS):
 * the canary's card on /api/shop, the seal /api/packs publishes, the proof ledger's rows. Every URL
 * comes from `links`.
 */
import { links } from '../../../contract/links';
import type { ProofRowView, PublishedCanary, Storefront } from '../ports';

/** One public read may take this long. */
const READ_TIMEOUT_MS = 10_000;

async function getJson(url: string, fetchImpl: typeof fetch): Promise<Record<string, unknown>> {
  const res = await fetchImpl(url, { signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as unknown;
  if (typeof body !== 'object' || body === null) throw new Error(`GET ${url} answered no JSON object`);
  return body as Record<string, unknown>;
}

const field = (o: unknown, key: string): unknown => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined);

export function httpStorefront(baseUrl: string, fetchImpl: typeof fetch = fetch): Storefront {
  const l = links(baseUrl);
  return {
    async canary(): Promise<PublishedCanary> {
      const card = field(field(await getJson(l.shop, fetchImpl), 'shelves'), 'canary');
      const skill = field(card, 'skill_id');
      const amount = field(card, 'amount');
      const pay = field(card, 'pay');
      if (typeof skill !== 'string' || typeof amount !== 'string' || !/^\d+$/.test(amount) || typeof pay !== 'string')
        throw new Error(`${l.shop} lists no canary card with skill_id, amount and pay`);
      return { skill, amount: BigInt(amount), pay };
    },
    async publishedSeal(skill: string): Promise<string> {
      const url = l.skill(skill).packs;
      const seal = field(field(await getJson(url, fetchImpl), 'seal'), 'value');
      if (typeof seal !== 'string') throw new Error(`${url} publishes no seal.value`);
      return seal;
    },
    async proofRows(skill: string): Promise<ProofRowView[]> {
      const url = `${l.skill(skill).proof}&limit=100`;
      const rows = field(await getJson(url, fetchImpl), 'recent_unlocks');
      if (!Array.isArray(rows)) throw new Error(`${url} has no recent_unlocks`);
      return rows.map((r) => ({
        txHash: String(field(r, 'txHash')),
        skill: String(field(r, 'skill')),
        amount: String(field(r, 'amount')),
        payer: String(field(r, 'payer')),
      }));
    },
  };
}
