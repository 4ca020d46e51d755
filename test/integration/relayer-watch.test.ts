/**
 * Payments' scheduled watch of the x402 relayer (watch-handler.ts, every 5 minutes in AWS): it
 * reads the relayer's ETH balance on the chain and says whether it is short of the minimum the
 * RelayerBalanceLow alarm is set at; a balance it cannot read fails the run (so the alarm, which
 * treats no reading as a low balance, fires). Run on the local chain with a relayer of its own.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { SETTINGS } from '../../lambdas/contract/settings';
import { handler } from '../../lambdas/payments/watch-handler';
import { chainTools } from '../support/chain';

const rpcUrl = inject('rpcUrl');
const chain = chainTools(rpcUrl);
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

/** The watch's environment: this chain, and a relayer key of its own holding `wei`. */
async function relayerWith(wei: bigint): Promise<string> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await chain.test.setBalance({ address, value: wei });
  process.env[SETTINGS.rpcUrls.env] = rpcUrl;
  process.env[INFRA_ENV.relayerPrivateKey] = key;
  process.env[SETTINGS.relayerMinBalanceEth.env] = '0.002';
  return address;
}

describe("payments' relayer watch", () => {
  it('reads the balance and says it is enough, then short once it falls under relayerMinBalanceEth', async () => {
    const address = await relayerWith(5n * 10n ** 15n);
    expect(await handler({ task: 'relayer_balance' })).toEqual({
      task: 'relayer_balance',
      relayer: address,
      balance_wei: '5000000000000000',
      balance_eth: '0.005',
      minimum_wei: '2000000000000000',
      short: false,
    });
    await chain.test.setBalance({ address: address as `0x${string}`, value: 10n ** 15n });
    expect(await handler({ task: 'relayer_balance' })).toMatchObject({ balance_eth: '0.001', short: true });
  });

  it('fails the run when the balance cannot be read (the alarm sees no reading)', async () => {
    await relayerWith(10n ** 16n);
    process.env[SETTINGS.rpcUrls.env] = 'http://127.0.0.1:9';
    await expect(handler({ task: 'relayer_balance' })).rejects.toThrow();
  });

  it('says there is nothing to watch without a relayer, and refuses an unknown task', async () => {
    process.env[SETTINGS.rpcUrls.env] = rpcUrl;
    delete process.env[INFRA_ENV.relayerPrivateKey];
    delete process.env[INFRA_ENV.relayerKmsKeyId];
    expect(await handler({ task: 'relayer_balance' })).toMatchObject({ relayer: null });
    expect(await handler({ task: 'top_up' })).toEqual({ error: 'unknown task "top_up": expected "relayer_balance"' });
  });
});
