/** The access surface's two inputs, read one way everywhere: a wallet address and a skill id, each 400 when wrong. */
import { ADDRESS } from '../contract/chain';
import type { CatalogEntry } from '../contract/catalog-data';
import { invalidRequest } from '../platform/errors';
import type { ApiRequest } from '../platform/http';
import type { AccessPorts } from './ports';

/** The wallet of a query: the first of `names` present (default `wallet`, then its alias `address`); 400 unless it is an address. */
export function walletParam(req: ApiRequest, names: readonly string[] = ['wallet', 'address']): string {
  const raw = names
    .map((n) => req.query[n])
    .find((v) => v !== undefined)
    ?.trim();
  if (!raw || !ADDRESS.test(raw)) {
    throw invalidRequest(
      names[0]!,
      `\`${names[0]}\` must be a wallet address: 0x followed by 40 hex digits.`,
      `Add ?${names[0]}=0x… to the URL.`,
    );
  }
  return raw;
}

/** A skill by id, from a query or a body; 400 (not 404) for a missing or unknown one, as the access surface promises. */
export function skillById(id: string | undefined, ports: Pick<AccessPorts, 'catalog'>): CatalogEntry {
  const trimmed = id?.trim();
  const entry = trimmed && trimmed.length <= 100 ? ports.catalog.get(trimmed) : undefined;
  if (!entry) {
    throw invalidRequest(
      'skill',
      trimmed ? `Unknown skill "${trimmed.slice(0, 100)}".` : '`skill` is required.',
      'GET /catalog.json or /api/catalog?q=… lists the skill ids.',
    );
  }
  return entry;
}

/** The `skill` of a query, as {@link skillById}. */
export const skillParam = (req: ApiRequest, ports: Pick<AccessPorts, 'catalog'>): CatalogEntry => skillById(req.query['skill'], ports);
