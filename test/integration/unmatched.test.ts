/**
 * Money received but not delivered, on the local chain: a USDC transfer to the treasury that no
 * claim matches is in the unmatched-receipts report (with payer, amount, time and what the
 * catalog sells at that amount) and nowhere else; a transfer claimed through POST /api/pay is not
 * in it. Run as the operator does (`npm run unmatched`, the ledger's scheduled function's task).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createWalletClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import { localChain } from '../../local/local-chain';
import { stackBooks } from '../support/books';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const dynamo = inject('dynamoEndpoint');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const tools = chainTools(rpcUrl);

/** A 0.49 USDC skill no other test file buys. */
const CLAIMED_SKILL = 'article-fact-check';

/** A transfer to the treasury from a fresh wallet holding just enough USDC and ETH. */
async function payTreasury(amount: bigint): Promise<{ tx: Hex; payer: Address; block: bigint }> {
  const account = await tools.freshWallet(USDC, amount, 10n ** 16n);
  const wallet = createWalletClient({ account, chain: localChain(rpcUrl), transport: http(rpcUrl) });
  const tx = await wallet.writeContract({ address: USDC, abi: erc20Abi, functionName: 'transfer', args: [TREASURY, amount] });
  const receipt = await tools.pub.waitForTransactionReceipt({ hash: tx, pollingInterval: 50 });
  return { tx, payer: account.address, block: receipt.blockNumber };
}

/** `npm run unmatched` against this run's stack (or what `env` points it at instead). */
function unmatchedCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  // As an operator's shell has it: no explorer named (the test run's stack may have set one for itself).
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited['EXPLORER_URL'];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'local/unmatched.ts', ...args],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        // No EXPLORER_URL: a chain at a loopback address is a local one, which no explorer shows.
        env: { ...inherited, DYNAMODB_ENDPOINT: dynamo, RPC_URLS: rpcUrl, TREASURY_ADDRESS: TREASURY, ...env },
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
    );
  });
}

describe('unmatched receipts', () => {
  it('lists a transfer no claim matches, with what it probably paid for, and not a claimed one; nothing else shows it', async () => {
    const stray = await payTreasury(99_000n);
    const odd = await payTreasury(12_345n);
    const claimed = await payTreasury(490_000n);
    const pay = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: claimed.tx, skill: CLAIMED_SKILL }) },
    });
    expect(pay.status, await pay.clone().text()).toBe(200);

    const from = [stray, odd, claimed].reduce((min, t) => (t.block < min ? t.block : min), stray.block);
    const to = [stray, odd, claimed].reduce((max, t) => (t.block > max ? t.block : max), stray.block);
    // Fresh transfers are within the grace period (their buyers may still claim): not judged yet, but
    // listed as too recent to judge, and the summary says so and names the grace.
    const fresh = await unmatchedCli(['--from-block', String(from), '--to-block', String(to)]);
    expect(fresh.code, fresh.err).toBe(0);
    const early = JSON.parse(fresh.out);
    expect(early.grace_seconds).toBe(600);
    expect(early.unmatched.map((u: { tx_hash: string }) => u.tx_hash)).not.toContain(stray.tx.toLowerCase());
    const recent = early.too_recent.map((u: { tx_hash: string }) => u.tx_hash);
    expect(recent).toEqual(expect.arrayContaining([stray.tx.toLowerCase(), odd.tx.toLowerCase()]));
    expect(recent).not.toContain(claimed.tx.toLowerCase());
    expect(early.too_recent.find((u: { tx_hash: string }) => u.tx_hash === stray.tx.toLowerCase())).toMatchObject({
      amount: '0.099',
      payer: stray.payer.toLowerCase(),
      explorer_tx: null,
    });
    expect(early.transfers).toBe(early.matched + early.unmatched.length + early.too_recent.length);
    expect(early.note).toMatch(/too recent to judge.*600 s/);
    expect(fresh.err).toMatch(/too recent to judge.*600 s grace/);
    expect(fresh.err).not.toMatch(/all matched/i);

    const run = await unmatchedCli(['--from-block', String(from), '--to-block', String(to), '--grace-seconds', '0']);
    expect(run.code, run.err).toBe(1);
    const report = JSON.parse(run.out);
    expect(report).toMatchObject({ from_block: String(from), to_block: String(to), grace_seconds: 0, too_recent: [] });
    const mine = report.unmatched.filter((u: { tx_hash: string }) => [stray.tx, odd.tx].map((t) => t.toLowerCase()).includes(u.tx_hash));
    expect(mine).toHaveLength(2);
    expect(mine.find((u: { tx_hash: string }) => u.tx_hash === stray.tx.toLowerCase())).toMatchObject({
      asset: 'USDC',
      amount_atomic: '99000',
      amount: '0.099',
      payer: stray.payer.toLowerCase(),
      block: String(stray.block),
      explorer_tx: null,
      likely: expect.arrayContaining([
        { kind: 'skill', id: 'csv-cleaner' },
        { kind: 'skill', id: 'ten-send' },
      ]),
    });
    expect(mine.find((u: { tx_hash: string }) => u.tx_hash === odd.tx.toLowerCase())).toMatchObject({ amount: '0.012345', likely: [] });
    expect(Date.parse(mine[0].time)).toBeGreaterThan(Date.now() - 600_000);
    // The claimed transfer is matched by its ledger row.
    expect(report.unmatched.map((u: { tx_hash: string }) => u.tx_hash)).not.toContain(claimed.tx.toLowerCase());
    expect(report.matched).toBeGreaterThanOrEqual(1);

    // Nowhere else: not on the proof ledger, not a sale in the figures.
    const proof = (await (await fetch(`${base}/api/proof?limit=100`)).json()) as { recent_unlocks: { txHash: string }[] };
    const listed = proof.recent_unlocks.map((r) => r.txHash.toLowerCase());
    expect(listed).not.toContain(stray.tx.toLowerCase());
    expect(listed).not.toContain(odd.tx.toLowerCase());
    // Nor in finance's books, where the claimed one is a sale.
    const { transactions } = await stackBooks(dynamo);
    const references = transactions.map((r) => r.reference.toLowerCase());
    expect(transactions.find((r) => r.reference === claimed.tx.toLowerCase())).toMatchObject({
      type: 'sale',
      amount: '0.49',
      payer: claimed.payer,
    });
    expect(references).not.toContain(stray.tx.toLowerCase());
    expect(references).not.toContain(odd.tx.toLowerCase());
  }, 90_000); // three purchases' blocks and two runs of the tool (a tsx process each), on a shared machine

  it('refuses a block that is not a number, and says why when the chain is unreachable', async () => {
    const bad = await unmatchedCli(['--from-block', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--from-block must be a whole number');
    const down = await unmatchedCli([], { RPC_URLS: 'http://127.0.0.1:9' });
    expect(down.code).toBe(2);
    expect(down.err).toContain('unmatched could not run');
  });
});
