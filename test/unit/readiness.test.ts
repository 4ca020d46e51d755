import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { filePackStore } from '../../lambdas/payments/adapters/file-pack-store';
import { buildChallenge } from '../../lambdas/payments/core/challenge';
import type { ReadinessPorts } from '../../lambdas/payments/ports';
import { checkReadiness } from '../../lambdas/payments/readiness';
import { fixedRpcUrls } from '../../lambdas/platform/rpc-urls';

const catalog = loadCatalogFiles();
const sound = readMarketConfig(
  {
    treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
    legacyTreasury: '0xBaD000000000000000000000000000000000DeAD',
    rpcUrls: 'http://rpc.one/key123,http://rpc.two',
  },
  { requireTreasury: true },
);
const BASE = 'https://m.example';

function ports(over: Partial<ReadinessPorts> = {}): ReadinessPorts {
  return {
    configReading: sound,
    catalog,
    packs: filePackStore(),
    probeTables: async () => [{ logicalName: 'Ledger', name: 't', ok: true, detail: 'ACTIVE' }],
    rpcUrls: fixedRpcUrls(sound.config.rpcUrls),
    probeChainIds: async (urls) => urls.map((url) => ({ url, chainId: 8453, error: undefined })),
    liveChallenge: async () => ({
      status: 402,
      body: JSON.stringify(buildChallenge(catalog.get('agent-x402-first-buy')!, sound.config, BASE)),
    }),
    probeRelayer: async () => [{ address: '0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec', balanceWei: 10n ** 18n }],
    ...over,
  };
}
const find = (r: Awaited<ReturnType<typeof checkReadiness>>, name: string) => r.checks.find((c) => c.name === name)!;

describe('checkReadiness', () => {
  it('is ready when every check passes, and names the spec checks', async () => {
    const r = await checkReadiness(ports(), BASE);
    expect(r.checks.map((c) => c.name)).toEqual([
      'catalog',
      'challenge_shape',
      'challenge_live_402',
      'sealed_pack',
      'money_safety',
      'tables',
      'chain',
      'relayer',
    ]);
    expect(r.checks.filter((c) => !c.ok)).toEqual([]);
    expect(r.ready).toBe(true);
  });

  it('fails challenge_live_402 when the handler does not answer 402 with a valid challenge', async () => {
    const r1 = await checkReadiness(
      ports({ liveChallenge: async () => ({ status: 503, body: '{"error_code":"PAYMENTS_DISABLED"}' }) }),
      BASE,
    );
    expect(find(r1, 'challenge_live_402')).toMatchObject({ ok: false, detail: expect.stringMatching(/answered 503/) });
    const r2 = await checkReadiness(ports({ liveChallenge: async () => ({ status: 402, body: '{"maxAmountRequired":"5000"}' }) }), BASE);
    expect(find(r2, 'challenge_live_402').ok).toBe(false);
    expect(r2.ready).toBe(false);
  });

  it('is not ready without a relayer, below its minimum ETH, or when its balance cannot be read', async () => {
    const none = await checkReadiness(ports({ probeRelayer: async () => undefined }), BASE);
    expect(find(none, 'relayer')).toMatchObject({ ok: false, detail: expect.stringMatching(/no relayer/) });
    const poor = await checkReadiness(ports({ probeRelayer: async () => [{ address: '0xabc', balanceWei: 10n ** 15n }] }), BASE);
    expect(find(poor, 'relayer')).toMatchObject({
      ok: false,
      detail: '0 of 1 relayer keys hold the minimum for gas (0.002 ETH): 0xabc holds 0.001 ETH',
    });
    expect(poor.ready).toBe(false);
    const down = await checkReadiness(ports({ probeRelayer: async () => [{ address: '0xabc', error: 'timeout' }] }), BASE);
    expect(find(down, 'relayer')).toMatchObject({ ok: false, detail: expect.stringMatching(/unreadable \(timeout\)/) });
    const rich = await checkReadiness(ports({ probeRelayer: async () => [{ address: '0xabc', balanceWei: 2n * 10n ** 15n }] }), BASE);
    expect(find(rich, 'relayer').ok).toBe(true);
  });

  it('stays ready while one key of the relayer pool at least is funded', async () => {
    const pool =
      (...wei: bigint[]) =>
      async () =>
        wei.map((balanceWei, i) => ({ address: `0x${i}`, balanceWei }));
    const one = await checkReadiness(ports({ probeRelayer: pool(0n, 10n ** 15n, 3n * 10n ** 15n, 0n) }), BASE);
    expect(find(one, 'relayer')).toMatchObject({ ok: true, detail: expect.stringMatching(/^1 of 4 relayer keys hold/) });
    const mixed = await checkReadiness(
      ports({
        probeRelayer: async () => [
          { address: '0x1', error: 'timeout' },
          { address: '0x2', balanceWei: 10n ** 18n },
        ],
      }),
      BASE,
    );
    expect(find(mixed, 'relayer').ok).toBe(true);
    const none = await checkReadiness(ports({ probeRelayer: pool(0n, 10n ** 15n) }), BASE);
    expect(find(none, 'relayer').ok).toBe(false);
  });

  it('fails sealed_pack when the canary pack is missing or altered', async () => {
    const r = await checkReadiness(
      ports({ packs: { get: (id) => (id === 'agent-x402-first-buy' ? { 'SKILL.md': 'tampered' } : undefined) } }),
      BASE,
    );
    expect(find(r, 'sealed_pack')).toMatchObject({ ok: false, detail: expect.stringMatching(/differs/) });
  });

  it('fails money_safety, with a clear reason, when the treasury is the legacy address', async () => {
    const legacy = readMarketConfig(
      { treasury: '0xbad000000000000000000000000000000000dead', legacyTreasury: '0xBaD000000000000000000000000000000000DeAD' },
      { requireTreasury: true },
    );
    const r = await checkReadiness(ports({ configReading: legacy }), BASE);
    expect(r.ready).toBe(false);
    expect(find(r, 'money_safety')).toMatchObject({ ok: false, detail: expect.stringMatching(/banned legacy treasury/) });
    expect(find(r, 'challenge_shape').ok).toBe(false);
  });

  it('fails chain and money_safety for a provider on another chain, and hides RPC keys', async () => {
    const r = await checkReadiness(
      ports({ probeChainIds: async (urls) => urls.map((url, i) => ({ url, chainId: i === 0 ? 8453 : 1, error: undefined })) }),
      BASE,
    );
    expect(find(r, 'chain')).toMatchObject({ ok: false, detail: expect.stringMatching(/chain id 1 \(expected 8453\)/) });
    expect(find(r, 'money_safety').ok).toBe(false);
    expect(find(r, 'chain').detail).not.toMatch(/key123/);
  });

  it('fails tables when a table is not active', async () => {
    const r = await checkReadiness(
      ports({ probeTables: async () => [{ logicalName: 'Ledger', name: 't', ok: false, detail: 'ResourceNotFoundException' }] }),
      BASE,
    );
    expect(find(r, 'tables').ok).toBe(false);
  });
});
