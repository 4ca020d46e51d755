import { CHAIN_ID } from '#shared/chain';
import { json, type ApiResponse } from '#shared/http';
import { redactUrl } from '#shared/redact';
import type { DiscoveryPorts } from './ports';

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Readiness {
  ready: boolean;
  checks: ReadinessCheck[];
}

/**
 * Runs every readiness check against the live dependencies. `ready` is true only when
 * every check passes: it means the rails can challenge and unlock, not that sales are high.
 */
export async function checkReadiness(ports: Pick<DiscoveryPorts, 'config' | 'probeTables' | 'probeChainIds'>): Promise<Readiness> {
  const { config, problems } = ports.config;
  const [tables, providers] = await Promise.all([ports.probeTables(), ports.probeChainIds(config.rpcUrls)]);

  const checks: ReadinessCheck[] = [];

  checks.push({
    name: 'tables',
    ok: tables.length > 0 && tables.every((t) => t.ok),
    detail: tables.map((t) => `${t.logicalName} (${t.name}): ${t.detail}`).join('; '),
  });

  const reachable = providers.filter((p) => p.chainId !== undefined);
  const wrongChain = reachable.filter((p) => p.chainId !== CHAIN_ID);
  checks.push({
    name: 'chain',
    // A provider on another chain is a misconfiguration even if another one is right.
    ok: reachable.length > 0 && wrongChain.length === 0,
    detail: providers
      .map((p) => `${redactUrl(p.url)}: ${p.chainId !== undefined ? `chain id ${p.chainId}${p.chainId === CHAIN_ID ? '' : ` (expected ${CHAIN_ID})`}` : `unreachable (${p.error})`}`)
      .join('; ') || 'no RPC provider configured',
  });

  checks.push({
    name: 'money_safety',
    ok: problems.length === 0 && config.treasury !== undefined,
    detail:
      problems.length > 0
        ? problems.join(' ')
        : `treasury ${config.treasury}${config.legacyTreasury ? `, legacy treasury ${config.legacyTreasury} banned` : ''}; assets USDC ${config.assets.USDC}, USDbC ${config.assets.USDbC}`,
  });

  return { ready: checks.every((c) => c.ok), checks };
}

/** GET /api/ready: always 200; the body says whether the service is ready and why not. */
export async function getReady(_req: unknown, ports: DiscoveryPorts): Promise<ApiResponse> {
  const readiness = await checkReadiness(ports);
  return json(200, { ok: true, ...readiness, time: ports.now().toISOString() });
}
