/**
 * Payments' scheduled watch of the x402 relayer (watch-handler.ts, every 5 minutes in AWS): it
 * reads the relayer's ETH balance on the chain and says whether it is short of the minimum the
 * RelayerBalanceLow alarm is set at; a balance it cannot read fails the run (so the alarm, which
 * treats no reading as a low balance, fires). Run on the local chain with a relayer of its own, and
 * an escrow operator of its own when a test gives one (its gas is watched the same way).
 * Its second task counts the x402 settlements stuck in flight, from the local stack's table.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { SETTINGS } from '../../lambdas/contract/settings';
import { SETTLEMENTS_TABLE } from '../../lambdas/contract/tables';
import { dynamoSettlements } from '../../lambdas/facilitator/adapters/dynamo-settlements';
import { dynamoClient } from '../../lambdas/platform/adapters/dynamo-client';
import { handler } from '../../lambdas/payments/watch-handler';
import { chainTools } from '../support/chain';

const rpcUrl = inject('rpcUrl');
const chain = chainTools(rpcUrl);
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

/** The watch's environment: this chain, and a relayer pool of its own, one key per balance in `wei`. */
async function relayerWith(...wei: bigint[]): Promise<string[]> {
  const keys = wei.map(() => generatePrivateKey());
  const addresses = keys.map((k) => privateKeyToAccount(k).address);
  await Promise.all(addresses.map((address, i) => chain.test.setBalance({ address, value: wei[i]! })));
  process.env[SETTINGS.rpcUrls.env] = rpcUrl;
  process.env[INFRA_ENV.relayerPrivateKeys] = keys.join(',');
  process.env[SETTINGS.relayerMinBalanceEth.env] = '0.002';
  // No escrow operator unless a test gives one.
  delete process.env[INFRA_ENV.escrowOperatorPrivateKey];
  delete process.env[INFRA_ENV.escrowOperatorKmsKeyId];
  return addresses;
}

/** An escrow operator of the watch's own (x402 auth-capture), holding `wei`. */
async function operatorWith(wei: bigint): Promise<string> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await chain.test.setBalance({ address, value: wei });
  process.env[INFRA_ENV.escrowOperatorPrivateKey] = key;
  return address;
}

describe("payments' relayer watch", () => {
  it("reads every pool key's balance and says they are enough, then short once one falls under relayerMinBalanceEth", async () => {
    const [first, second] = await relayerWith(5n * 10n ** 15n, 3n * 10n ** 15n);
    expect(await handler({ task: 'relayer_balance' })).toEqual({
      task: 'relayer_balance',
      keys: [
        { relayer: first, balance_wei: '5000000000000000', balance_eth: '0.005', short: false },
        { relayer: second, balance_wei: '3000000000000000', balance_eth: '0.003', short: false },
      ],
      minimum_wei: '2000000000000000',
      short: false,
    });
    await chain.test.setBalance({ address: second as `0x${string}`, value: 10n ** 15n });
    expect(await handler({ task: 'relayer_balance' })).toMatchObject({
      keys: [
        { relayer: first, short: false },
        { relayer: second, balance_eth: '0.001', short: true },
      ],
      short: true,
    });
  });

  it("reads the escrow operator's balance beside the pool's, marked, with the same minimum (issue 53)", async () => {
    const [pool] = await relayerWith(5n * 10n ** 15n);
    const operator = await operatorWith(3n * 10n ** 15n);
    expect(await handler({ task: 'relayer_balance' })).toEqual({
      task: 'relayer_balance',
      keys: [
        { relayer: pool, balance_wei: '5000000000000000', balance_eth: '0.005', short: false },
        { relayer: operator, balance_wei: '3000000000000000', balance_eth: '0.003', short: false, escrow_operator: true },
      ],
      minimum_wei: '2000000000000000',
      short: false,
    });
    // The operator short alone makes the run short: RelayerBalanceLow's Minimum is its balance then.
    await chain.test.setBalance({ address: operator as `0x${string}`, value: 10n ** 15n });
    expect(await handler({ task: 'relayer_balance' })).toMatchObject({
      keys: [
        { relayer: pool, short: false },
        { relayer: operator, balance_eth: '0.001', short: true, escrow_operator: true },
      ],
      short: true,
    });
  });

  it('fails the run when the balance cannot be read (the alarm sees no reading)', async () => {
    await relayerWith(10n ** 16n);
    process.env[SETTINGS.rpcUrls.env] = 'http://127.0.0.1:9';
    await expect(handler({ task: 'relayer_balance' })).rejects.toThrow();
  });

  it('says there is nothing to watch without a relayer, and refuses an unknown task', async () => {
    process.env[SETTINGS.rpcUrls.env] = rpcUrl;
    delete process.env[INFRA_ENV.relayerPrivateKeys];
    delete process.env[INFRA_ENV.relayerKmsKeyIds];
    expect(await handler({ task: 'relayer_balance' })).toMatchObject({ relayer: null });
    expect(await handler({ task: 'top_up' })).toEqual({
      error: 'unknown task "top_up": expected one of "relayer_balance", "stuck_settlements"',
    });
  });

  it('counts a settlement claimed more than 10 minutes ago and still in flight, until its outcome is written', async () => {
    process.env[INFRA_ENV.dynamodbEndpoint] = inject('dynamoEndpoint');
    const settlements = dynamoSettlements(dynamoClient());
    const nonce = `0x${[...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
    const payer = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    const pk = `eip155:8453#${inject('usdc').toLowerCase()}#${payer}#${nonce}`;
    const claimedAt = new Date(Date.now() - 11 * 60_000).toISOString();
    await settlements.claim({
      pk,
      resource: 'csv-cleaner',
      payer,
      token: inject('usdc').toLowerCase(),
      amount: '1',
      state: 'claimed',
      lease: 'l',
      claimedAt,
    });
    const stuck = await handler({ task: 'stuck_settlements' });
    expect(stuck).toMatchObject({ task: 'stuck_settlements' });
    expect((stuck as { keys: string[] }).keys).toContain(pk);
    expect((stuck as { stuck: number }).stuck).toBeGreaterThanOrEqual(1);

    await settlements.finish(pk, { state: 'failed', failure: 'authorization_expired', finishedAt: new Date().toISOString() });
    expect(((await handler({ task: 'stuck_settlements' })) as { keys: string[] }).keys).not.toContain(pk);
  });

  it('fails the stuck-settlements run when the table cannot be read', async () => {
    process.env[INFRA_ENV.dynamodbEndpoint] = inject('dynamoEndpoint');
    process.env[SETTLEMENTS_TABLE.env] = 'no-such-table';
    await expect(handler({ task: 'stuck_settlements' })).rejects.toThrow();
  });
});
