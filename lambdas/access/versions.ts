/**
 * Which versions a wallet's access covers (issue 52; docs/ACCESS.md, "Versions"), for the routes
 * that deliver a pack to a wallet that already has it:
 * - a purchase (a transfer): the version it bought, the one whose digest its ledger row recorded,
 *   and every later one, as its license;
 * - a subscription: the versions published while it runs: the one current when it started and
 *   every later one (a version published after it ends is never asked for, as it no longer grants);
 * - a meter draw: every version. The meter records which skills were drawn, not when, so no
 *   version can be said to be before the draw; the draw paid the full price.
 */
import type { PackVersionMeta } from '../contract/pack-versions';
import { noReceipt, signReceipt } from '../ledger';
import { boughtVersion } from '../payments';
import type { AccessDecision } from './core/decide-access';
import type { AccessPorts } from './ports';

/** The version current on `day` (YYYY-MM-DD or an ISO instant): the newest published on or before it; 1 when none was. */
export function versionOnDay(versions: readonly PackVersionMeta[] | undefined, when: string): number {
  const day = when.slice(0, 10);
  return versions?.filter((v) => v.published <= day).at(-1)?.version ?? 1;
}

/**
 * The first version a granted decision covers, and the receipt of the purchase behind it (a
 * transfer's access carries its sale's receipt, signed again from its row: one read). A
 * subscription or a meter is no sale of this pack, so its access carries none.
 */
export async function accessCoverage(
  decision: AccessDecision,
  skill: string,
  ports: AccessPorts,
  baseUrl: string,
): Promise<{ coveredFrom: number; receipt?: string }> {
  const versions = ports.catalog.versions(skill);
  if (!decision.granted) return { coveredFrom: Number.MAX_SAFE_INTEGER };
  if (decision.via === 'subscription') return { coveredFrom: versionOnDay(versions, decision.since) };
  if (decision.via !== 'one-time' || decision.source !== 'transfer') return { coveredFrom: 1 };
  const row = await ports.payments.ledger.get(ports.payments.config.network.name, decision.txHash);
  return {
    coveredFrom: boughtVersion(versions, row?.packSeal),
    ...(row && !noReceipt(row) ? { receipt: await signReceipt(row, baseUrl, ports.payments.serviceSigner, ports.catalog.versions) } : {}),
  };
}
