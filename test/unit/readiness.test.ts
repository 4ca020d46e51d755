import { describe, expect, it } from 'vitest';
import { readMarketConfig } from '#shared/config';
import { checkReadiness } from '../../lambdas/discovery/readiness';
import type { DiscoveryPorts } from '../../lambdas/discovery/ports';

const sound = readMarketConfig(
  { treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720', legacyTreasury: '0xBaD000000000000000000000000000000000DeAD', rpcUrls: 'http://rpc.one/key123,http://rpc.two' },
  { requireTreasury: true },
);

function ports(over: Partial<DiscoveryPorts> = {}): DiscoveryPorts {
  return {
    config: sound,
    probeTables: async () => [{ logicalName: 'Ledger', name: 't', ok: true, detail: 'ACTIVE' }],
    probeChainIds: async (urls) => urls.map((url) => ({ url, chainId: 8453, error: undefined })),
    now: () => new Date(0),
    ...over,
  };
}

const check = (r: Awaited<ReturnType<typeof checkReadiness>>, name: string) => r.checks.find((c) => c.name === name)!;

describe('checkReadiness', () => {
  it('is ready when every check passes', async () => {
    const r = await checkReadiness(ports());
    expect(r.ready).toBe(true);
    expect(r.checks.map((c) => c.name)).toEqual(['tables', 'chain', 'money_safety']);
    expect(r.checks.every((c) => c.ok)).toBe(true);
  });

  it('fails the tables check when a table is not active', async () => {
    const r = await checkReadiness(ports({ probeTables: async () => [{ logicalName: 'Ledger', name: 't', ok: false, detail: 'ResourceNotFoundException' }] }));
    expect(r.ready).toBe(false);
    expect(check(r, 'tables')).toMatchObject({ ok: false, detail: expect.stringContaining('ResourceNotFoundException') });
  });

  it('fails the chain check for a provider on another chain, and hides RPC keys', async () => {
    const r = await checkReadiness(
      ports({ probeChainIds: async (urls) => urls.map((url, i) => ({ url, chainId: i === 0 ? 8453 : 1, error: undefined })) }),
    );
    expect(check(r, 'chain').ok).toBe(false);
    expect(check(r, 'chain').detail).toMatch(/chain id 1 \(expected 8453\)/);
    expect(check(r, 'chain').detail).not.toMatch(/key123/);
  });

  it('passes the chain check when one provider is down and another answers 8453', async () => {
    const r = await checkReadiness(
      ports({ probeChainIds: async (urls) => urls.map((url, i) => (i === 0 ? { url, chainId: undefined, error: 'TimeoutError' } : { url, chainId: 8453, error: undefined })) }),
    );
    expect(check(r, 'chain').ok).toBe(true);
    expect(check(r, 'chain').detail).toMatch(/unreachable \(TimeoutError\)/);
  });

  it('fails when no provider answers', async () => {
    const r = await checkReadiness(ports({ probeChainIds: async (urls) => urls.map((url) => ({ url, chainId: undefined, error: 'down' })) }));
    expect(r.ready).toBe(false);
    expect(check(r, 'chain').ok).toBe(false);
  });

  it('fails money safety when the treasury is the legacy address', async () => {
    const legacy = readMarketConfig(
      { treasury: '0xbad000000000000000000000000000000000dead', legacyTreasury: '0xBaD000000000000000000000000000000000DeAD' },
      { requireTreasury: true },
    );
    const r = await checkReadiness(ports({ config: legacy }));
    expect(r.ready).toBe(false);
    expect(check(r, 'money_safety')).toMatchObject({ ok: false, detail: expect.stringMatching(/banned legacy treasury/) });
  });
});
