/**
 * Payments' synthetic purchase (synthetic/core.ts, the function the stage schedules and the
 * pipeline invokes after a deploy) against the local stack: a funding wallet of its own (a fresh
 * wallet holding test USDC and ETH, standing for the operator's) funds a new buyer with exactly the
 * canary's price, the buyer buys the canary through the edge with x402's stock client, and the run
 * checks the seal and the proof ledger row. A pack whose bytes were altered fails at `seal`; a
 * ledger without the purchase's row fails at `ledger`; a funder with no USDC fails at `fund`.
 */
import { erc20Abi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { handler } from '../../lambdas/payments/synthetic-handler';
import { runSyntheticPurchase, SyntheticPurchaseFailure } from '../../lambdas/payments/synthetic/core';
import type { Delivery, SyntheticPurchasePorts } from '../../lambdas/payments/synthetic/ports';
import { syntheticPurchasePorts } from '../../lambdas/payments/synthetic/wiring';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const chain = chainTools(rpcUrl);

/** The canary as a buyer finds it: the card on /api/shop. */
const canary = async () => ((await (await fetch(`${base}/api/shop`)).json()) as any).shelves.canary as { skill_id: string; amount: string };

/** The composed ports with a funding wallet of this test's own, holding `usdc` and ETH for gas. */
async function ports(usdc?: bigint): Promise<SyntheticPurchasePorts> {
  const key = generatePrivateKey();
  const funder = privateKeyToAccount(key).address;
  await chain.setTokenBalance(USDC, funder, usdc ?? 10n * BigInt((await canary()).amount));
  await chain.setEthBalance(funder, 10n ** 17n);
  return {
    ...syntheticPurchasePorts({ baseUrl: base, rpcUrls: [rpcUrl], usdc: USDC, funderKey: key, pollingIntervalMs: 200 }),
    ledgerPatience: { attempts: 3, delayMs: 200 },
  };
}

const usdcOf = (who: Address) => chain.pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

async function failureOf(run: Promise<unknown>): Promise<SyntheticPurchaseFailure> {
  const e = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(e).toBeInstanceOf(SyntheticPurchaseFailure);
  return e as SyntheticPurchaseFailure;
}

/** The ports with every delivery the fresh buyer receives passed through `after` (to alter or to note it). */
function deliveriesThrough(p: SyntheticPurchasePorts, after: (d: Delivery) => Delivery): SyntheticPurchasePorts {
  return {
    ...p,
    freshBuyer: () => {
      const buyer = p.freshBuyer();
      return { address: buyer.address, buy: async (url) => after(await buyer.buy(url)) };
    },
  };
}

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('the synthetic purchase', () => {
  it('funds a fresh buyer with the canary price, buys the canary through the edge, and finds the seal and the ledger row right', async () => {
    const card = await canary();
    const report = await runSyntheticPurchase(await ports());
    expect(report).toMatchObject({ ok: true, skill: card.skill_id, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/i) });
    expect(report.ms).toBeGreaterThan(0);
    // Funded with exactly the price, and all of it paid: the buyer is left with nothing.
    expect(await usdcOf(report.buyer as Address)).toBe(0n);
    const transfer = await chain.transferOf(report.fundTxHash as Hex);
    expect(transfer).toMatchObject({ to: report.buyer, value: BigInt(card.amount) });
    const rows = ((await (await fetch(`${base}/api/proof?skill=${card.skill_id}&limit=100`)).json()) as any).recent_unlocks;
    expect(rows.filter((r: any) => r.txHash === report.txHash.toLowerCase())).toEqual([
      expect.objectContaining({ skill: card.skill_id, amount: card.amount, payer: report.buyer }),
    ]);
  });

  it('fails at seal when the delivered pack bytes differ from the sealed ones', async () => {
    const p = await ports();
    const altered = deliveriesThrough(p, (d) => {
      const files = { ...(d.files as Record<string, string>) };
      files['SKILL.md'] = `${files['SKILL.md']} `;
      return { ...d, files };
    });
    const failure = await failureOf(runSyntheticPurchase(altered));
    expect(failure.step).toBe('seal');
    expect(failure.message).toMatch(/^synthetic purchase failed at seal: the files hash to [0-9a-f]{64}, the answer's seal is/);
  });

  it('fails at ledger when the proof ledger has no row for the purchase', async () => {
    const p = await ports();
    let bought: string | undefined;
    const withoutIt: SyntheticPurchasePorts = {
      // The purchase's hash, to leave its row out.
      ...deliveriesThrough(p, (d) => {
        bought = d.txHash;
        return d;
      }),
      // The ledger as it would read had the claim never been recorded: every row but this purchase's.
      storefront: {
        ...p.storefront,
        proofRows: async (skill) => (await p.storefront.proofRows(skill)).filter((r) => r.txHash !== bought?.toLowerCase()),
      },
    };
    const failure = await failureOf(runSyntheticPurchase(withoutIt));
    expect(failure.step).toBe('ledger');
    expect(failure.message).toMatch(/^synthetic purchase failed at ledger: no row for 0x[0-9a-f]{64} among the \d+ newest of /i);
  });

  it('fails at ledger when the row names another amount', async () => {
    const p = await ports();
    const wrongAmount: SyntheticPurchasePorts = {
      ...p,
      storefront: {
        ...p.storefront,
        proofRows: async (skill) => (await p.storefront.proofRows(skill)).map((r) => ({ ...r, amount: '1' })),
      },
    };
    const failure = await failureOf(runSyntheticPurchase(wrongAmount));
    expect(failure.step).toBe('ledger');
    expect(failure.message).toMatch(/says amount 1 /);
  });

  it('fails at fund when the funding wallet holds no USDC, before any purchase', async () => {
    const failure = await failureOf(runSyntheticPurchase(await ports(0n)));
    expect(failure.step).toBe('fund');
  });

  it('the Lambda entry throws a setup failure without its funding secret, and refuses an unknown task', async () => {
    process.env['PUBLIC_BASE_URL'] = base;
    delete process.env[INFRA_ENV.syntheticFunderSecretArn];
    await expect(handler({})).rejects.toThrow(/^synthetic purchase failed at setup: SYNTHETIC_FUNDER_SECRET_ARN is not set/);
    expect(await handler({ task: 'smoke' })).toEqual({ error: 'unknown task "smoke": expected "synthetic_purchase" or no task' });
  });
});
