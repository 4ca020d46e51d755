/**
 * GET /api/ready: whether the rails can challenge and unlock right now, with one entry per
 * check. `ready` is true only when every check passes; it says nothing about sales.
 * It lives with payments because its checks need what only the payments bundle holds.
 */
import { CATALOG_SIZE_EXPECTED } from '../contract/catalog-data';
import { formatDecimal } from '../contract/chain';
import { networkAssets } from '../contract/networks';
import { challengeable } from '../contract/settings';
import { packFiles, packSeal } from '../contract/pack-seal';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { redactUrl } from '../platform/redact';
import { buildChallenge } from './core/challenge';
import { ChallengeSchema } from '../contract/challenge-schema';
import type { ReadinessPorts } from './ports';

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Readiness {
  ready: boolean;
  checks: ReadinessCheck[];
}

const check = (name: string, ok: boolean, detail: string): ReadinessCheck => ({ name, ok, detail });

export async function checkReadiness(ports: ReadinessPorts, baseUrl: string): Promise<Readiness> {
  const { config, problems } = ports.configReading;
  const canaryId = ports.catalog.pricing.canary;
  const canary = ports.catalog.get(canaryId);
  const [tables, providers, live, relayer] = await Promise.all([
    ports.probeTables(),
    ports.rpcUrls().then(ports.probeChainIds),
    ports.liveChallenge(baseUrl).catch((e: unknown) => ({ status: 0, body: (e as Error).message })),
    ports.probeRelayer().catch((e: unknown) => [{ address: 'the relayer pool', error: (e as Error).message }]),
  ]);
  const checks: ReadinessCheck[] = [];

  checks.push(
    check(
      'catalog',
      ports.catalog.entries.length === CATALOG_SIZE_EXPECTED && canary !== undefined,
      `${ports.catalog.entries.length} skills loaded (expected ${CATALOG_SIZE_EXPECTED}); canary ${canaryId} ${canary ? 'present' : 'missing'}`,
    ),
  );

  const sound = problems.length === 0 && config.treasury !== undefined;
  if (canary && sound) {
    const parsed = ChallengeSchema.safeParse(buildChallenge(canary, config, baseUrl));
    checks.push(
      check(
        'challenge_shape',
        parsed.success,
        parsed.success
          ? `the ${canaryId} challenge validates: amount ${canary.x402.amount}, payTo ${config.treasury}`
          : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      ),
    );
  } else checks.push(check('challenge_shape', false, 'no challenge can be built: the canary or the payment configuration is missing'));

  let liveOk = live.status === 402;
  let liveDetail = `GET /api/pay?skill=${canaryId} answered ${live.status || 'nothing'}`;
  if (liveOk) {
    const body = ChallengeSchema.safeParse(JSON.parse(live.body));
    liveOk = body.success;
    liveDetail += body.success ? ' with a valid challenge' : ` with an invalid challenge: ${body.error.issues[0]?.message}`;
  } else if (live.status !== 0) liveDetail += `: ${live.body.slice(0, 200)}`;
  checks.push(check('challenge_live_402', liveOk, liveDetail));

  const pack = canary ? ports.packs.get(canary.id) : undefined;
  const expected = canary ? ports.catalog.packMeta(canary.id)?.seal : undefined;
  const seal = pack ? packSeal(packFiles(pack)) : undefined;
  checks.push(
    check(
      'sealed_pack',
      seal !== undefined && seal === expected,
      pack
        ? `${Object.keys(pack).length} files, seal ${seal === expected ? 'matches' : `differs (${seal} vs ${expected})`}`
        : `the ${canaryId} pack is not readable`,
    ),
  );

  const reachable = providers.filter((p) => p.chainId !== undefined);
  const { chainId } = config.network;
  const wrongChain = reachable.filter((p) => p.chainId !== chainId);
  const chainOk = reachable.length > 0 && wrongChain.length === 0;
  checks.push(
    check(
      'money_safety',
      sound && chainOk && challengeable(config),
      problems.length > 0
        ? problems.join(' ')
        : `treasury ${config.treasury}${config.legacyTreasury ? ` (legacy ${config.legacyTreasury} banned)` : ''}; ${networkAssets(
            config.network,
          )
            .map((a) => `${a} ${config.assets[a]}`)
            .join(', ')}; ${chainOk ? `chain id ${chainId}` : `chain id not confirmed as ${chainId}`}`,
    ),
  );

  checks.push(
    check(
      'tables',
      tables.length > 0 && tables.every((t) => t.ok),
      tables.map((t) => `${t.logicalName} (${t.name}): ${t.detail}`).join('; '),
    ),
  );
  checks.push(
    check(
      'chain',
      chainOk,
      providers
        .map(
          (p) =>
            `${redactUrl(p.url)}: ${p.chainId !== undefined ? `chain id ${p.chainId}${p.chainId === chainId ? '' : ` (expected ${chainId})`}` : `unreachable (${p.error})`}`,
        )
        .join('; ') || 'no RPC provider configured',
    ),
  );
  // Every challenge offers x402 v2's signed authorization, which only the relayer can settle: ready
  // while one key of its pool at least holds the minimum (a short key only leaves the pool).
  const minimum = BigInt(config.relayerMinBalanceWei);
  const keys = relayer ?? [];
  const funded = keys.filter((k) => 'balanceWei' in k && k.balanceWei >= minimum);
  const described = keys
    .map((k) =>
      'error' in k ? `${k.address}: balance unreadable (${k.error})` : `${k.address} holds ${formatDecimal(k.balanceWei, 18)} ETH`,
    )
    .join('; ');
  checks.push(
    keys.length === 0
      ? check(
          'relayer',
          false,
          'no relayer: signed authorizations (PAYMENT-SIGNATURE) are refused; set RELAYER_KMS_KEY_IDS (AWS) or RELAYER_PRIVATE_KEYS',
        )
      : check(
          'relayer',
          funded.length > 0,
          `${funded.length} of ${keys.length} relayer keys hold the minimum for gas (${formatDecimal(minimum, 18)} ETH): ${described}`,
        ),
  );
  return { ready: checks.every((c) => c.ok), checks };
}

/** GET /api/ready: always 200; the body says whether the service is ready and why not. */
export async function getReady(req: ApiRequest, ports: ReadinessPorts): Promise<ApiResponse> {
  return json(200, { ok: true, ...(await checkReadiness(ports, req.baseUrl)) });
}
