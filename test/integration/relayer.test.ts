/**
 * The relayer when two function instances sign at once: both take the same pending nonce, the
 * node refuses the second transaction, and that one is signed again with the next nonce and
 * recorded as replacing the refused one. And a call prepared ahead of its submission: what is
 * read under a key, and which key signs. Its own chain, so other files' settlements stay apart.
 */
import { fixedRpcUrls } from '../../lambdas/platform/rpc-urls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, keccak256, toHex, type Address } from 'viem';
import { privateKeyRelayerAccount, viemRelayer } from '../../lambdas/facilitator/adapters/viem-relayer';
import type { RelayerLeases, SignedPayment } from '../../lambdas/facilitator/ports';
import { ensureRelayer, ensureRelayers, ensureTestTokens, startAnvil, testAccount, type AnvilHandle } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { ASSET_EIP712, CHAIN_ID } from '../../lambdas/contract/chain';
import { NETWORKS } from '../../lambdas/contract/networks';
import { chainTools, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../support/chain';
import { passThrough, rpcProxy } from '../support/rpc-proxy';

let anvil: AnvilHandle;
let usdc: Address;
let key: string;
beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  usdc = (await ensureTestTokens(anvil.rpcUrl)).USDC;
  key = (await ensureRelayer(anvil.rpcUrl)).privateKey;
});
afterAll(() => anvil?.stop());

/** A signed x402 exact payment of `value` by test account `from` to the treasury. */
async function payment(from: number, value: bigint): Promise<SignedPayment> {
  const account = testAccount(from);
  await chainTools(anvil.rpcUrl).setTokenBalance(usdc, account.address, 10n ** 8n);
  const authorization = {
    from: account.address,
    to: testAccount(9).address,
    value: value.toString(),
    validAfter: '0',
    validBefore: String(Math.floor(Date.now() / 1000) + 600),
    nonce: keccak256(toHex(`${from}-${Math.random()}`)),
  };
  const signature = await account.signTypedData({
    domain: { ...ASSET_EIP712.USDC, chainId: CHAIN_ID, verifyingContract: usdc },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value, validAfter: 0n, validBefore: BigInt(authorization.validBefore), nonce: authorization.nonce },
  });
  return {
    x402Version: 2,
    accepted: {
      scheme: 'exact',
      network: 'eip155:8453',
      asset: usdc,
      amount: value.toString(),
      payTo: authorization.to,
      maxTimeoutSeconds: 60,
      extra: {},
    },
    payload: { signature, authorization },
  };
}

/** A JSON-RPC proxy in front of `target` that writes down each method it passes on, in order (a batch's one by one). */
async function recordingRpc(target: string): Promise<{ url: string; methods: string[]; close: () => Promise<void> }> {
  const methods: string[] = [];
  const proxy = await rpcProxy(target, (calls, forward) => {
    for (const call of calls) methods.push(call.method ?? '');
    return passThrough(calls, forward);
  });
  return { ...proxy, methods };
}

describe('relayer', () => {
  it('a call prepared ahead: under the key only the signature, the record and the send; another key of the pool may sign it; a revert takes no key', async () => {
    const rpc = await recordingRpc(anvil.rpcUrl);
    try {
      const [first, second] = await ensureRelayers(anvil.rpcUrl, 2);
      // The first key is leased to another instance: this holder gets the second, while nothing it
      // leases yet, its preparation names the first (any key's estimate is the call's).
      const taken: string[] = [];
      const leases: RelayerLeases = {
        take: async (address) => (taken.push(address), address.toLowerCase() !== first!.address.toLowerCase()),
        release: async () => undefined,
      };
      const relayer = viemRelayer(
        fixedRpcUrls([rpc.url]),
        [privateKeyRelayerAccount(first!.privateKey), privateKeyRelayerAccount(second!.privateKey)],
        NETWORKS.base,
        { leases, holder: 'prepared', minBalanceWei: 0n },
        { pollingIntervalMs: 50 },
      );
      const paid = await payment(32, 5000n);
      const prepared = relayer.prepare(usdc, paid);
      // Submitted once the preparation has read the call's gas and fees.
      for (let i = 0; i < 200 && !rpc.methods.includes('eth_fillTransaction'); i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 50));
      const from = rpc.methods.length;
      const recorded: string[] = [];
      const sent = await relayer.submit(usdc, paid, async (tx) => (recorded.push(tx.from), true), prepared);
      expect(sent.kind).toBe('sent');
      const underKey = rpc.methods.slice(from);
      expect(underKey).toContain('eth_sendRawTransaction');
      expect(underKey).not.toContain('eth_fillTransaction');
      expect(underKey).not.toContain('eth_estimateGas');
      expect(recorded).toEqual([second!.address]);
      const receipt = await relayer.receipt((sent as { txHash: string }).txHash, 5_000);
      expect(receipt?.status).toBe('success');

      // Fees move block by block: a call prepared more than a block ago (a long wait for a key) is filled again under the key.
      const later = await payment(34, 5000n);
      const stale = relayer.prepare(usdc, later);
      await new Promise((r) => setTimeout(r, 2_100));
      const before = rpc.methods.length;
      expect((await relayer.submit(usdc, later, async (tx) => (recorded.push(tx.from), true), stale)).kind).toBe('sent');
      expect(rpc.methods.slice(before)).toContain('eth_fillTransaction');
      recorded.pop();

      // A payment over the payer's balance: the preparation says it reverts, and the submission
      // answers so without taking a key, signing or recording anything.
      const over = await payment(33, 10n ** 9n);
      const tries = taken.length;
      const refused = await relayer.submit(usdc, over, async () => (recorded.push('never'), true), relayer.prepare(usdc, over));
      expect(refused.kind).toBe('would_revert');
      expect(taken.length).toBe(tries);
      expect(recorded).toEqual([second!.address]);
    } finally {
      await rpc.close();
    }
  });

  it('two instances signing at once: the refused transaction is signed again with the next nonce and recorded as its replacement', async () => {
    // Two relayer adapters with one key: two Lambda instances whose leases both say "yours" (the
    // fallback a lease cannot rule out: a count gone wrong), each counting the key's nonce itself.
    const everyoneHolds: RelayerLeases = { take: async () => true, release: async () => undefined };
    const pool = (holder: string) => ({ leases: everyoneHolds, holder, minBalanceWei: 0n });
    const a = viemRelayer(fixedRpcUrls([anvil.rpcUrl]), [privateKeyRelayerAccount(key)], NETWORKS.base, pool('a'), {
      pollingIntervalMs: 50,
    });
    const b = viemRelayer(fixedRpcUrls([anvil.rpcUrl]), [privateKeyRelayerAccount(key)], NETWORKS.base, pool('b'), {
      pollingIntervalMs: 50,
    });
    const records: { who: string; txHash: string; replaces?: string }[] = [];
    const record = (who: string) => async (tx: { txHash: string }, replaces?: string) => {
      records.push({ who, txHash: tx.txHash, ...(replaces ? { replaces } : {}) });
      return true;
    };
    const [pa, pb] = [await payment(30, 5000n), await payment(31, 5000n)];
    const sent = await Promise.all([a.submit(usdc, pa, record('a')), b.submit(usdc, pb, record('b'))]);
    const [ta, tb] = sent.map((s) => (s.kind === 'sent' ? s : undefined));
    const pub = createPublicClient({ chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
    const receipts = await Promise.all(
      [ta!, tb!].map((t) => pub.waitForTransactionReceipt({ hash: t.txHash as `0x${string}`, pollingInterval: 50 })),
    );
    expect(receipts.map((r) => r.status)).toEqual(['success', 'success']);
    // Both transfers happened once; one of the two was signed twice, the second naming the first it replaces.
    const replaced = records.filter((r) => r.replaces);
    expect(replaced).toHaveLength(1);
    expect(records.some((r) => r.txHash === replaced[0]!.replaces && r.who === replaced[0]!.who)).toBe(true);
    // Sending a mined one again: its nonce is used (by itself), which its receipt tells apart.
    expect(await a.rebroadcast(ta!.raw)).toBe('nonce_taken');
    expect(await a.receipt(ta!.txHash, 1_000)).toMatchObject({ status: 'success' });
    const refused = records.find((r) => r.txHash === replaced[0]!.replaces)!;
    expect(await pub.getTransactionReceipt({ hash: refused.txHash as `0x${string}` }).catch(() => undefined)).toBeUndefined();
  });
});
