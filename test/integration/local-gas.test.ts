/**
 * The local chain prices gas like Base (issue 51): the relayer's gas for an x402 settlement costs
 * about what it costs on Base (a base fee and a tip of thousandths of a gwei), not anvil's 1 gwei
 * tip, which at the local $3,000 feed made every 0.099 USDC sale a loss in the books.
 */
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { Address, Hex } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import { toMicroUsd } from '../../lambdas/contract/finance-export';
import { stackBooks } from '../support/books';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const dynamo = inject('dynamoEndpoint');
const USDC = inject('usdc') as Address;
const chain = chainTools(inject('rpcUrl'));

/** A 0.099 USDC skill; each sale here is a fresh wallet's, so none is an owner's free re-download. */
const SKILL = 'proof-ledger-publisher';
const SALES = 20;

/** A decimal string of dollars as micro-dollars (the books write exact decimals). */
const micro = (usd: string): bigint => {
  const [whole, frac = ''] = usd.replace('-', '').split('.');
  const value = BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, '0').slice(0, 6));
  return usd.startsWith('-') ? -value : value;
};

describe('the local chain prices gas like Base', () => {
  it(`the net of ${SALES} x402 sales at 0.099 USDC, less the relayer's gas for each, is positive in the books`, async () => {
    const settled: Hex[] = [];
    for (let i = 0; i < SALES; i++) {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: await chain.freshWallet(USDC, 10n ** 6n) });
      const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${SKILL}`);
      expect(res.status, await res.clone().text()).toBe(200);
      const response = JSON.parse(Buffer.from(res.headers.get('payment-response')!, 'base64').toString()) as { transaction: Hex };
      settled.push(response.transaction.toLowerCase() as Hex);
    }

    // The books as `npm run revenue -- <dir> --transactions` reads them: each settlement's sale and its gas share the reference.
    const { transactions } = await stackBooks(dynamo);
    const ours = transactions.filter((r) => settled.includes(r.reference as Hex));
    expect(ours.filter((r) => r.type === 'sale')).toHaveLength(SALES);
    const gas = ours.filter((r) => r.type === 'relayer_gas');
    expect(gas).toHaveLength(SALES);
    // Every gas row is priced (a settlement whose price could not be read would leave the net unknown, not positive).
    for (const row of gas) expect(row.gas_usd, JSON.stringify(row)).toBeTruthy();
    const gross = ours.reduce((sum, r) => sum + micro(r.gross_usd ?? '0'), 0n);
    const net = ours.reduce((sum, r) => sum + micro(r.net_usd!), 0n);
    expect(gross).toBe(toMicroUsd(99_000n * BigInt(SALES), 6));
    expect(net, `net ${net} micro-dollars of ${gross} gross`).toBeGreaterThan(0n);
    // Like Base: a settlement's gas is about a tenth of a cent at most (70k gas at ~0.006 gwei and $3,000 is $0.0013).
    for (const row of gas) expect(micro(row.gas_usd!), JSON.stringify(row)).toBeLessThan(5_000n);
  }, 120_000);
});
