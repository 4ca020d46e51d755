/**
 * Issue 38, goal 4: several processes share the relayer's key pool, as Lambda instances do in AWS.
 * Four `npm start` children run the payments path against the run's one DynamoDB Local (one lease
 * table) and one anvil, with one pool of four keys of their own. Forty stock @x402/fetch buyers
 * (fresh wallets) pay at once, ten per process: every purchase settles, no nonce is ever lost
 * (no `gap`: the node never refused a counted nonce), and no key is leased to two processes at
 * once; each transaction's sender was leased to the process that sent it while its request ran.
 * The processes' own logs ("relayer lease") are the record of who held which key when.
 */
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { createPublicClient, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { killStarted, runStart, sharedStackEnv, type StartedProcess } from '../support/spawn-start';

const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const chain = chainTools(rpcUrl);
const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) });
/** A skill only x402-v1.test.ts buys besides (its checks look for its own transaction only). */
const SKILL = 'proof-ledger-publisher';
const PROCESSES = 4;
const PURCHASES = 40;

const started: StartedProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.interrupt()));
  killStarted();
});

type LeaseLine = { event: string; address: string; holder: string; at: number; until?: number };

/** The "relayer lease" lines a process logged (Powertools JSON, one per line). */
const leaseLines = (output: string): LeaseLine[] =>
  output
    .split('\n')
    .filter((l) => l.includes('"relayer lease"'))
    .map((l) => JSON.parse(l) as LeaseLine);

/** Each holder's time on each key: from `taken` to its release, or to its last expiry. */
function intervals(lines: LeaseLine[]): { address: string; holder: string; from: number; to: number }[] {
  const out: { address: string; holder: string; from: number; to: number }[] = [];
  const open = new Map<string, { from: number; to: number }>();
  for (const l of lines) {
    const k = `${l.holder}#${l.address}`;
    if (l.event === 'taken') open.set(k, { from: l.at, to: l.until! });
    else if (l.event === 'renewed' && open.has(k)) open.get(k)!.to = l.until!;
    else if (l.event === 'released' && open.has(k)) {
      out.push({ address: l.address, holder: l.holder, from: open.get(k)!.from, to: Math.min(l.at, open.get(k)!.to) });
      open.delete(k);
    }
  }
  for (const [k, v] of open) {
    const [holder, address] = k.split('#') as [string, string];
    out.push({ address, holder, ...v });
  }
  return out;
}

describe('the relayer key pool shared by four processes', () => {
  it('settles 40 concurrent purchases with no nonce error and no key leased to two processes at once', { timeout: 120_000 }, async () => {
    const keys = Array.from({ length: PROCESSES }, () => generatePrivateKey());
    const pool = keys.map((k) => privateKeyToAccount(k).address.toLowerCase());
    await Promise.all(pool.map((address) => chain.test.setBalance({ address: address as Address, value: 10n ** 19n })));
    const env = { ...sharedStackEnv(inject), RELAYER_PRIVATE_KEYS: keys.join(','), POWERTOOLS_LOG_LEVEL: 'INFO' };
    started.push(...(await Promise.all(Array.from({ length: PROCESSES }, () => runStart(env, 90_000)))));
    const buyers = await Promise.all(Array.from({ length: PURCHASES }, () => chain.freshWallet(USDC, 10n ** 6n)));

    const t0 = Date.now();
    const purchases = await Promise.all(
      buyers.map(async (buyer, i) => {
        const process = i % PROCESSES;
        const client = new x402Client();
        registerExactEvmScheme(client, { signer: buyer });
        const from = Date.now();
        const res = await wrapFetchWithPayment(fetch, client)(`${started[process]!.baseUrl}/api/pay?skill=${SKILL}`);
        const to = Date.now();
        const header = res.headers.get('payment-response');
        if (res.status !== 200) console.log(`purchase ${i} via process ${process}: ${res.status} ${await res.text()}`);
        return { process, status: res.status, tx: header ? (decodePaymentResponseHeader(header).transaction as Hex) : undefined, from, to };
      }),
    );
    console.log(`relayer pool: ${PURCHASES} purchases over ${PROCESSES} processes in ${Date.now() - t0} ms`);
    if (purchases.some((p) => p.status !== 200))
      for (const s of started)
        console.log(
          s
            .output()
            .split('\n')
            .filter((l) => l.includes('"level":"ERROR"') || l.includes('"level":"WARN"'))
            .join('\n'),
        );
    expect(purchases.map((p) => p.status)).toEqual(purchases.map(() => 200));

    // On chain: 40 transfers, each from a key of the pool, each mined successfully.
    const receipts = await Promise.all(purchases.map((p) => pub.waitForTransactionReceipt({ hash: p.tx!, pollingInterval: 50 })));
    expect(receipts.every((r) => r.status === 'success')).toBe(true);
    expect(receipts.every((r) => pool.includes(r.from.toLowerCase()))).toBe(true);
    expect(new Set(receipts.map((r) => r.transactionHash)).size).toBe(PURCHASES);

    // Each process's record of its leases: no nonce lost, and no key held by two processes at once.
    const logs = started.map((s) => leaseLines(s.output()));
    expect(logs.flat().filter((l) => l.event === 'gap')).toEqual([]);
    const holders = logs.map((lines) => new Set(lines.map((l) => l.holder)));
    const spans = intervals(logs.flat());
    for (const address of pool) {
      const onKey = spans.filter((s) => s.address === address).sort((a, b) => a.from - b.from);
      for (let i = 1; i < onKey.length; i++)
        if (onKey[i]!.holder !== onKey[i - 1]!.holder)
          expect(onKey[i]!.from, `${address} overlapping leases`).toBeGreaterThanOrEqual(onKey[i - 1]!.to);
    }
    // Each transaction's sender was leased to the process that sent it while its request ran.
    purchases.forEach((p, i) => {
      const sender = receipts[i]!.from.toLowerCase();
      const held = spans.some((s) => s.address === sender && holders[p.process]!.has(s.holder) && s.from <= p.to && s.to >= p.from);
      expect(held, `purchase ${i} sent by ${sender} from process ${p.process}`).toBe(true);
    });
    // The keys' nonces have no hole and no double: each key's transactions are one run of nonces.
    const txs = await Promise.all(receipts.map((r) => pub.getTransaction({ hash: r.transactionHash })));
    for (const address of pool) {
      const nonces = txs
        .filter((t) => t.from.toLowerCase() === address)
        .map((t) => t.nonce)
        .sort((a, b) => a - b);
      expect(nonces).toEqual(nonces.map((_, i) => nonces[0]! + i));
    }
    // Several processes signed, with several keys: the pool spread the work.
    expect(new Set(receipts.map((r) => r.from.toLowerCase())).size).toBeGreaterThan(1);
  });
});
