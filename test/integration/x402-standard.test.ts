/**
 * x402 v2's standard flow through the local stack: an unmodified @x402/fetch client (default
 * settings, an anvil account as its signer) fetches a skill's resource URL and gets the pack; the
 * service settles the signed EIP-3009 authorization from its relayer, once. The buyers here are
 * fresh accounts of the test mnemonic (12 and up), funded by writing their token balance, so no
 * other file's accounts or nonces are touched; they never send a transaction themselves.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithSIWx } from '@x402/extensions/sign-in-with-x';
import {
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getContractAddress,
  hashMessage,
  hashTypedData,
  http,
  keccak256,
  parseEther,
  serializeErc6492Signature,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, toAccount } from 'viem/accounts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import { contractArtifact, localRelayerAddresses, testAccount } from '../../local/anvil';
import { signInWithXHeader } from '../../local/sign-in-with-x';
import { localChain } from '../../local/local-chain';
import { chainTools, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../support/chain';
import { requestFrom } from '../support/source-address';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const chain = localChain(rpcUrl);
const pub = createPublicClient({ chain, transport: http(rpcUrl) });

/** A skill no other file buys, so their counts and this file's never meet (payments.test.ts counts the canary's unlocks). */
const SKILL = 'agent-spend-policy-guard';
const PRICE = 490000n;
/** Another 0.49 USDC skill no other file buys: where a copied owner's authorization is spent (issue 50, finding 5). */
const SAME_PRICE = 'peer-review-response-letter';
const chainTool = chainTools(rpcUrl);
const decode = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString('utf8'));

/** A fresh buyer (mnemonic index `index`) holding `amount` of the test USDC, written straight into the token's storage. */
async function buyer(index: number, amount = 10n ** 9n) {
  const account = testAccount(index);
  await chainTool.setTokenBalance(USDC, account.address, amount);
  return account;
}

const balance = (who: Address) => pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
/** The relayer pool's keys: a relayed transfer comes from one of them. */
const RELAYERS = localRelayerAddresses();
/**
 * Where the chain is now, and later how many transactions the relayer sent since then that
 * carry `buyer`'s authorization, mined or reverted: other files' settlements share the relayer,
 * so its nonce alone cannot say.
 */
const relayerWatch = async () => {
  const from = await pub.getBlockNumber({ cacheTime: 0 });
  return async (buyer: Address): Promise<number> => {
    const to = await pub.getBlockNumber({ cacheTime: 0 });
    let n = 0;
    for (let b = from + 1n; b <= to; b++) {
      const block = await pub.getBlock({ blockNumber: b, includeTransactions: true });
      for (const tx of block.transactions)
        if (RELAYERS.includes(tx.from.toLowerCase()) && tx.input.toLowerCase().includes(buyer.slice(2).toLowerCase())) n++;
    }
    return n;
  };
};
const proofRows = async (tx: string) =>
  ((await (await fetch(`${base}/api/proof?skill=${SKILL}&limit=100`)).json()) as any).recent_unlocks.filter(
    (r: any) => r.txHash === tx.toLowerCase(),
  );

/** A stock client: x402Client with the exact EVM scheme and nothing else configured. */
function stockClient(account: LocalAccount) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  return client;
}

/** The PAYMENT-SIGNATURE a stock client makes for the skill's live challenge, without sending it. */
async function signedHeader(account: LocalAccount): Promise<string> {
  const http402 = new x402HTTPClient(stockClient(account));
  const res = await fetch(`${base}/api/pay?skill=${SKILL}`);
  const required = http402.getPaymentRequiredResponse((name) => res.headers.get(name));
  const payload = await http402.createPaymentPayload(required);
  return http402.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!;
}

describe('x402 v2 with a stock client', () => {
  it('an unmodified @x402/fetch client gets the pack; the transfer is on chain once, on the ledger, and a resend charges nothing', async () => {
    const account = await buyer(12);
    const [before, treasuryBefore, relayed] = [await balance(account.address), await balance(TREASURY), await relayerWatch()];
    const sent: Headers[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      sent.push(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
      return fetch(input, init);
    };
    const started = Date.now();
    const res = await wrapFetchWithPayment(recordingFetch, stockClient(account))(`${base}/api/pay?skill=${SKILL}`);
    const elapsed = Date.now() - started;
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
    expect(body.license.token).toEqual(expect.any(String));

    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(settlement.payer?.toLowerCase()).toBe(account.address.toLowerCase());
    const tx = settlement.transaction as Hex;
    expect(body.payment.txHash).toBe(tx.toLowerCase());

    // On chain, once: from the relayer, the buyer's exact price to the treasury.
    const receipt = await pub.getTransactionReceipt({ hash: tx });
    expect(RELAYERS).toContain(receipt.from.toLowerCase());
    expect(await balance(account.address)).toBe(before - PRICE);
    expect((await balance(TREASURY)) - treasuryBefore).toBeGreaterThanOrEqual(PRICE);
    expect(await relayed(account.address)).toBe(1);
    expect(await proofRows(tx)).toHaveLength(1);

    // The client sent PAYMENT-SIGNATURE once (after one 402); the same header again charges nothing and adds no row.
    const header = sent.map((h) => h.get('payment-signature')).find((h) => h !== null)!;
    expect(header).toEqual(expect.any(String));
    const again = await fetch(`${base}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': header } });
    const againBody = (await again.json()) as any;
    expect(again.status, JSON.stringify(againBody)).toBe(200);
    expect(againBody.payment.txHash).toBe(tx.toLowerCase());
    expect(againBody.revenue_ledger).toMatchObject({ replayed: true });
    expect(await balance(account.address)).toBe(before - PRICE);
    expect(await relayed(account.address)).toBe(1);
    expect(await proofRows(tx)).toHaveLength(1);
    console.log(`x402 stock client: first request to pack ${elapsed} ms`);
  });

  it("the README's stock snippet twice for one wallet: the second call gets the pack and charges nothing; another wallet is charged", async () => {
    const owner = await buyer(62);
    const other = await buyer(63);
    const relayed = await relayerWatch();
    // The README's snippet, as written: a stock client, any viem account holding USDC.
    const snippet = async (account: LocalAccount) => {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: account });
      const sent: Headers[] = [];
      const recording: typeof fetch = async (input, init) => {
        sent.push(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
        return fetch(input, init);
      };
      const res = await wrapFetchWithPayment(recording, client)(`${base}/api/pay?skill=${SKILL}`);
      return { res, body: (await res.json()) as any, header: sent.map((h) => h.get('payment-signature')).find((h) => h !== null) };
    };
    const start = await balance(owner.address);
    const first = await snippet(owner);
    expect(first.res.status, JSON.stringify(first.body)).toBe(200);
    expect(await balance(owner.address)).toBe(start - PRICE);
    expect(await relayed(owner.address)).toBe(1);

    // The second call signs a fresh authorization (a stock client always does); the wallet owns the skill, so nothing is settled.
    const second = await snippet(owner);
    expect(second.res.status, JSON.stringify(second.body)).toBe(200);
    expect(Object.keys(second.body.sealed_pack.files)).toContain('SKILL.md');
    expect(second.body).toMatchObject({ access: { granted: true, via: 'one-time', charged_atomic: '0' } });
    // x402's own e2e fetch client reads the settlement with getPaymentSettleResponse, which throws
    // without PAYMENT-RESPONSE / X-PAYMENT-RESPONSE: the owner's answer names the sale that made it
    // the owner (nothing new was settled), under both names.
    const sale = decodePaymentResponseHeader(first.res.headers.get('payment-response')!).transaction.toLowerCase();
    const read = new x402HTTPClient(new x402Client()).getPaymentSettleResponse((name) => second.res.headers.get(name));
    expect(read).toMatchObject({ success: true, transaction: sale, network: 'eip155:8453' });
    expect(read.payer?.toLowerCase()).toBe(owner.address.toLowerCase());
    expect(decode(second.res.headers.get('x-payment-response')!)).toMatchObject({ success: true, transaction: sale, network: 'base' });
    expect(await balance(owner.address)).toBe(start - PRICE);
    expect(await relayed(owner.address)).toBe(1);

    // That header is used up: a copy of it (it travelled in the clear) gets nothing, and is never settled to charge the owner.
    const copy = await requestFrom('127.0.0.9', `${base}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': second.header! } });
    expect(copy.status, copy.text).toBe(403);
    expect(copy.body).toMatchObject({ ok: false, error_code: 'INVALID_WALLET_SIGNATURE' });
    expect(await balance(owner.address)).toBe(start - PRICE);
    expect(await relayed(owner.address)).toBe(1);

    // The same copy spent elsewhere (issue 50, finding 5): on another skill of the same price, three
    // ways (v1 X-PAYMENT, v2 with `resource` deleted, v2 re-wrapped as v1). The authorization signs
    // no resource, so only the record of its one use stands between the copy and the owner's USDC.
    const decoded = JSON.parse(Buffer.from(second.header!, 'base64').toString()) as any;
    const asV1 = Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base', payload: decoded.payload })).toString(
      'base64',
    );
    const { resource: _resource, ...withoutResource } = decoded;
    const ways: Array<[string, Record<string, string>]> = [
      ['v1 X-PAYMENT', { 'X-PAYMENT': asV1 }],
      ['v2 without resource', { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(withoutResource)).toString('base64') }],
      [
        'v2 naming the other skill',
        {
          'PAYMENT-SIGNATURE': Buffer.from(
            JSON.stringify({ ...decoded, resource: { url: `${base}/api/pay?skill=${SAME_PRICE}` } }),
          ).toString('base64'),
        },
      ],
    ];
    for (const [way, headers] of ways) {
      const stolen = await requestFrom('127.0.0.9', `${base}/api/pay?skill=${SAME_PRICE}`, { headers });
      expect(stolen.status, `${way}: ${stolen.text}`).toBeGreaterThanOrEqual(400);
      expect(stolen.status, `${way}: ${stolen.text}`).toBeLessThan(500);
      expect(stolen.body.sealed_pack, way).toBeUndefined();
    }
    expect(await balance(owner.address)).toBe(start - PRICE);
    expect(await relayed(owner.address)).toBe(1);

    // Another wallet owns nothing: it is charged as any buyer.
    const otherStart = await balance(other.address);
    const paid = await snippet(other);
    expect(paid.res.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.res.headers.get('payment-response')).not.toBeNull();
    expect(await balance(other.address)).toBe(otherStart - PRICE);
  });

  it('a wallet that paid signs in (SIGN-IN-WITH-X) and downloads the pack again for nothing; another wallet gets the challenge', async () => {
    const account = await buyer(18);
    const paid = await wrapFetchWithPayment(fetch, stockClient(account))(`${base}/api/pay?skill=${SKILL}`);
    expect(paid.status).toBe(200);
    const before = await balance(account.address);
    const relayed = await relayerWatch();
    const signIn = await signInWithXHeader({ account, baseUrl: base, skill: SKILL });
    // From another address than the purchase: the signature is what proves the buyer.
    const again = await requestFrom('127.0.0.4', `${base}/api/pay?skill=${SKILL}`, { headers: { 'SIGN-IN-WITH-X': signIn } });
    expect(again.status, again.text).toBe(200);
    expect(Object.keys(again.body.sealed_pack.files)).toContain('SKILL.md');
    expect(again.body.revenue_ledger).toMatchObject({ replayed: true });
    expect(again.body.payment.payer.toLowerCase()).toBe(account.address.toLowerCase());
    expect(await balance(account.address)).toBe(before);
    expect(await relayed(account.address)).toBe(0);
    // The same signature twice: its nonce is single-use.
    const replayed = await requestFrom('127.0.0.4', `${base}/api/pay?skill=${SKILL}`, { headers: { 'SIGN-IN-WITH-X': signIn } });
    expect(replayed.status).toBe(403);
    expect(replayed.body).toMatchObject({ error_code: 'INVALID_WALLET_SIGNATURE' });
    // x402's own sign-in client (@x402/extensions) reads the extension in PAYMENT-REQUIRED, signs, and gets the pack.
    const stock = await wrapFetchWithSIWx(fetch, account)(`${base}/api/pay?skill=${SKILL}`);
    const stockBody = (await stock.json()) as any;
    expect(stock.status, JSON.stringify(stockBody)).toBe(200);
    expect(stockBody.payment.payer.toLowerCase()).toBe(account.address.toLowerCase());
    expect(await balance(account.address)).toBe(before);
    // A wallet that never paid: the challenge, nothing else.
    const stranger = await signInWithXHeader({ account: testAccount(19), baseUrl: base, skill: SKILL });
    const none = await fetch(`${base}/api/pay?skill=${SKILL}`, { headers: { 'SIGN-IN-WITH-X': stranger } });
    expect(none.status).toBe(402);
    expect(((await none.json()) as any).error_code).toBe('PAYMENT_REQUIRED');
  });

  it('20 parallel sends of one signed header broadcast once and all get the same pack', async () => {
    const account = await buyer(13);
    const header = await signedHeader(account);
    const [before, relayed] = [await balance(account.address), await relayerWatch()];
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${base}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': header } })),
    );
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as any[];
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(bodies.map((b) => b.payment.txHash)).size).toBe(1);
    expect(new Set(bodies.map((b) => JSON.stringify(b.sealed_pack.files))).size).toBe(1);
    expect(await relayed(account.address)).toBe(1);
    expect(await balance(account.address)).toBe(before - PRICE);
    expect(await proofRows(bodies[0].payment.txHash)).toHaveLength(1);
  });

  it('the header is public once on chain: another caller replaying it, or claiming its transfer by txHash, gets nothing', async () => {
    const account = await buyer(14);
    const header = await signedHeader(account);
    const first = await requestFrom('127.0.0.1', `${base}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(first.status, first.text).toBe(200);
    const tx = first.body.payment.txHash as string;

    const replay = await requestFrom('127.0.0.2', `${base}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(replay.status).toBe(403);
    expect(replay.body).toMatchObject({ ok: false, error_code: 'BUYER_PROOF_REQUIRED' });
    expect(replay.text).not.toContain('sealed_pack');

    const byHash = await requestFrom('127.0.0.3', `${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: SKILL }) },
    });
    expect(byHash.status).toBe(403);
    expect(byHash.body).toMatchObject({ error_code: 'BUYER_PROOF_REQUIRED' });
    expect(await proofRows(tx)).toHaveLength(1);
  });

  it('POST /api/pay takes the same header (a client that pays by POST), with the skill in the query or the body', async () => {
    const account = await buyer(16);
    const header = await signedHeader(account);
    const res = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'PAYMENT-SIGNATURE': header, 'content-type': 'application/json' },
      body: JSON.stringify({ skill: SKILL }),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: true });
    expect(await proofRows(body.payment.txHash)).toHaveLength(1);
  });

  it("MCP's unlock_skill takes the same signed payment as payment_signature", async () => {
    const account = await buyer(17);
    const header = await signedHeader(account);
    const mcp = new Client({ name: 'x402-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
    try {
      const before = await balance(account.address);
      const result = (await mcp.callTool({ name: 'unlock_skill', arguments: { skill_id: SKILL, payment_signature: header } })) as any;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      const body = result.structuredContent ?? JSON.parse(result.content[0].text);
      expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
      expect(await balance(account.address)).toBe(before - PRICE);
      expect(await proofRows(body.payment.txHash)).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });

  it('a contract wallet (EIP-1271) pays with a signed authorization and signs in again with SIGN-IN-WITH-X', async () => {
    // Deployed by a fresh account given ETH directly, so no other file's account sends a transaction here.
    const owner = testAccount(22);
    const deployer = testAccount(23);
    await createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) }).setBalance({
      address: deployer.address,
      value: parseEther('1'),
    });
    const { abi, bytecode } = contractArtifact('test-smart-wallet.artifact.json');
    const hash = await createWalletClient({ account: deployer, chain, transport: http(rpcUrl) }).deployContract({
      abi,
      bytecode,
      args: [owner.address],
    });
    const wallet = (await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress!;
    await chainTool.setTokenBalance(USDC, wallet, 10n ** 8n);
    // The wallet's signatures are its owner's signatures of the hash, which the wallet checks (isValidSignature).
    const contractSigner = toAccount({
      address: wallet,
      signMessage: async ({ message }) => owner.sign({ hash: hashMessage(message) }),
      signTypedData: async (typed) => owner.sign({ hash: hashTypedData(typed as never) }),
      signTransaction: async () => Promise.reject(new Error('a contract wallet sends no transactions')),
    });
    const res = await wrapFetchWithPayment(fetch, stockClient(contractSigner))(`${base}/api/pay?skill=${SKILL}`);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.payment.payer.toLowerCase()).toBe(wallet.toLowerCase());
    expect(await balance(wallet)).toBe(10n ** 8n - PRICE);

    const signIn = await signInWithXHeader({ account: contractSigner, baseUrl: base, skill: SKILL });
    const again = await requestFrom('127.0.0.5', `${base}/api/pay?skill=${SKILL}`, { headers: { 'SIGN-IN-WITH-X': signIn } });
    expect(again.status, again.text).toBe(200);
    expect(again.body.payment.txHash).toBe(body.payment.txHash);
    // Signed by anyone but the owner, the wallet refuses it.
    const forged = toAccount({
      ...contractSigner,
      signMessage: async ({ message }) => testAccount(24).sign({ hash: hashMessage(message) }),
    });
    const refused = await fetch(`${base}/api/pay?skill=${SKILL}`, {
      headers: { 'SIGN-IN-WITH-X': await signInWithXHeader({ account: forged, baseUrl: base, skill: SKILL }) },
    });
    expect(refused.status).toBe(403);
  });

  it('a wallet not deployed yet (ERC-6492) signs in: its signature is checked through its factory call, and with nothing bought it gets the challenge', async () => {
    const owner = testAccount(25);
    const deployer = testAccount(26);
    await createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) }).setBalance({
      address: deployer.address,
      value: parseEther('1'),
    });
    const factoryArtifact = contractArtifact('test-wallet-factory.artifact.json');
    const hash = await createWalletClient({ account: deployer, chain, transport: http(rpcUrl) }).deployContract({
      abi: factoryArtifact.abi,
      bytecode: factoryArtifact.bytecode,
    });
    const factory = (await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress!;
    const salt = keccak256(toHex('x402-6492'));
    const walletCode = concat([
      contractArtifact('test-smart-wallet.artifact.json').bytecode,
      encodeAbiParameters([{ type: 'address' }], [owner.address]),
    ]);
    const wallet = getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: walletCode });
    expect(await pub.getCode({ address: wallet })).toBeUndefined();
    const counterfactual = (signer: LocalAccount) =>
      toAccount({
        address: wallet,
        signMessage: async ({ message }) =>
          serializeErc6492Signature({
            address: factory,
            data: encodeFunctionData({ abi: factoryArtifact.abi, functionName: 'deploy', args: [owner.address, salt] }),
            signature: await signer.sign!({ hash: hashMessage(message) }),
          }),
        signTypedData: async () => Promise.reject(new Error('not used')),
        signTransaction: async () => Promise.reject(new Error('a contract wallet sends no transactions')),
      });
    const ask = async (signer: LocalAccount) =>
      fetch(`${base}/api/pay?skill=${SKILL}`, {
        headers: { 'SIGN-IN-WITH-X': await signInWithXHeader({ account: counterfactual(signer), baseUrl: base, skill: SKILL }) },
      });
    const accepted = await ask(owner);
    // The signature is the wallet's (not 403); the wallet bought nothing, so the answer is the challenge.
    expect(accepted.status).toBe(402);
    expect(((await accepted.json()) as any).error_code).toBe('PAYMENT_REQUIRED');
    const forged = await ask(testAccount(27));
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as any).error_code).toBe('INVALID_WALLET_SIGNATURE');
    // Checking it simulated the deployment; nothing was sent.
    expect(await pub.getCode({ address: wallet })).toBeUndefined();
  });

  it('17 kinds of invalid authorization are each refused with a 402 and its reason, and the relayer sends nothing for any', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const broke = privateKeyToAccount(generatePrivateKey());
    await chainTool.setTokenBalance(USDC, account.address, 10n ** 9n);
    const relayed = await relayerWatch();
    const challenge = await fetch(`${base}/api/pay?skill=${SKILL}`);
    const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString('utf8'));
    const accepted = required.accepts[0];
    const now = Math.floor(Date.now() / 1000);
    /** A PAYMENT-SIGNATURE built by hand, signed by `signer` over `domain`, with any field overridden. */
    const forge = async (o: {
      signer?: LocalAccount;
      from?: Address;
      to?: Address;
      value?: bigint;
      validAfter?: bigint;
      validBefore?: bigint;
      domain?: Record<string, unknown>;
      accepted?: Record<string, unknown>;
      resource?: string;
      signature?: (s: Hex) => Hex;
    }): Promise<string> => {
      const signer = o.signer ?? account;
      const message = {
        from: o.from ?? signer.address,
        to: o.to ?? (accepted.payTo as Address),
        value: o.value ?? PRICE,
        validAfter: o.validAfter ?? BigInt(now - 600),
        validBefore: o.validBefore ?? BigInt(now + 120),
        nonce: keccak256(toHex(`${Math.random()}`)),
      };
      const signature = await signer.signTypedData({
        domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: USDC, ...o.domain },
        types: TRANSFER_WITH_AUTHORIZATION_TYPES,
        primaryType: 'TransferWithAuthorization',
        message,
      });
      const authorization = Object.fromEntries(Object.entries(message).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));
      return Buffer.from(
        JSON.stringify({
          x402Version: 2,
          resource: { ...required.resource, ...(o.resource ? { url: o.resource } : {}) },
          accepted: { ...accepted, ...o.accepted },
          payload: { signature: o.signature ? o.signature(signature) : signature, authorization },
        }),
      ).toString('base64');
    };
    await chainTool.setEthBalance(testAccount(28).address, parseEther('1'));
    const lookalike = await chainTool.lookalike(28, 10n ** 9n);
    const cases: [string, Promise<string>][] = [
      ['another receiver', forge({ to: stranger.address })],
      ['less than the price', forge({ value: PRICE - 1n })],
      ['more than the price', forge({ value: PRICE + 1n })],
      ['expired', forge({ validBefore: BigInt(now - 60) })],
      ['not valid yet', forge({ validAfter: BigInt(now + 3600), validBefore: BigInt(now + 7200) })],
      ['signed by another key', forge({ signer: stranger, from: account.address })],
      ['a corrupted signature', forge({ signature: (s) => `${s.slice(0, 10)}${s[10] === 'a' ? 'b' : 'a'}${s.slice(11)}` as Hex })],
      ['a truncated signature', forge({ signature: (s) => s.slice(0, 100) as Hex })],
      ["the token's name wrong", forge({ domain: { name: 'USD Coin X' } })],
      ["the token's version wrong", forge({ domain: { version: '1' } })],
      ['another chain in the domain', forge({ domain: { chainId: 1 } })],
      ['a look-alike token in the domain', forge({ domain: { verifyingContract: lookalike } })],
      ['a payer with no balance', forge({ signer: broke })],
      ['another network', forge({ accepted: { network: 'eip155:1' } })],
      ['another scheme', forge({ accepted: { scheme: 'upto' } })],
      ['a look-alike asset', forge({ accepted: { asset: lookalike } })],
      ['made out for another resource', forge({ resource: `${base}/api/pay?skill=csv-cleaner` })],
    ];
    for (const [what, header] of cases) {
      const res = await fetch(`${base}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': await header } });
      const body = (await res.json()) as any;
      expect(res.status, `${what}: ${JSON.stringify(body)}`).toBe(402);
      expect(body, what).toMatchObject({ ok: false, error_code: 'PAYMENT_VERIFICATION_FAILED', details: { reason: expect.any(String) } });
      // One line a person can read, never a library's dump.
      expect(body.message, what).not.toContain('\n');
      if (what === 'a payer with no balance')
        expect(body.message).toBe(
          `${broke.address} holds less than 0.49 USD Coin on Base, the price of ${SKILL}: add it to that wallet, then pay again.`,
        );
    }
    for (const who of [account, stranger, broke]) expect(await relayed(who.address)).toBe(0);
    // No money left the payer (the treasury's own balance moves with other files' purchases running beside this one).
    expect(await balance(account.address)).toBe(10n ** 9n);
  }, 60_000);

  it('a malformed or foreign header is a 402 with the reason, in the body and in PAYMENT-REQUIRED', async () => {
    for (const [header, reason] of [
      ['not base64 json', 'invalid_payload'],
      [Buffer.from(JSON.stringify({ x402Version: 2, accepted: {}, payload: {} })).toString('base64'), 'invalid_payload'],
    ] as const) {
      const res = await fetch(`${base}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': header } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(402);
      expect(body).toMatchObject({ ok: false, error_code: 'PAYMENT_VERIFICATION_FAILED', details: { reason } });
      const required = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'));
      expect(required).toMatchObject({ x402Version: 2, error: reason });
    }
    // Signed for more than the price: x402's verification refuses it before anything is claimed or sent.
    const account = await buyer(15);
    const payload = JSON.parse(Buffer.from(await signedHeader(account), 'base64').toString('utf8'));
    payload.payload.authorization.value = '1';
    const tampered = await fetch(`${base}/api/pay?skill=${SKILL}`, {
      headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payload)).toString('base64') },
    });
    expect(tampered.status).toBe(402);
    expect(((await tampered.json()) as any).details.reason).toMatch(/invalid_exact_evm/);
  });
});
