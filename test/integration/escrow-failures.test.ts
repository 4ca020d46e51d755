/**
 * x402 auth-capture when delivery does not happen (issue 53), each case on an anvil of its own with
 * the escrow at its published addresses, and `npm start`'s entry on it (the shared DynamoDB Local):
 * - the pack store unavailable (the functions' sealed packs and versions pointed at an empty
 *   directory): the answer is a retryable 503, the escrow's void gives the buyer everything back,
 *   and no ledger row is written;
 * - the service stopped right after its `authorize` was broadcast: once the authorization
 *   expires, the buyer reclaims from the escrow with viem alone and gets everything back; the
 *   service, started again, delivers nothing for that payment and records nothing.
 * The buyers are fresh random wallets; the relayer keys (47, 48) and operators (154, 155) are this file's own.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { createWalletClient, erc20Abi, http, parseEther, parseEventLogs, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { LEDGER_TABLE, SETTLEMENTS_TABLE } from '../../lambdas/contract/tables';
import { scanItems } from '../../lambdas/platform/adapters/dynamo-client';
import { tableName } from '../../lambdas/platform/table-names';
import { ensureRelayer, ensureTestTokens, startAnvil, testAccount } from '../../local/anvil';
import { AUTH_CAPTURE_ESCROW_ABI, ensureAuthCaptureEscrow, guardEscrowOperator, LOCAL_AUTH_CAPTURE_ESCROW } from '../../local/escrow';
import { localChain } from '../../local/local-chain';
import { freePort } from '../../local/free-port';
import { chainTools } from '../support/chain';
import { killStarted, runStart, sharedStackEnv, withStarted } from '../support/spawn-start';

const stopAfter: (() => Promise<void>)[] = [];
const db = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
afterAll(async () => {
  killStarted();
  for (const stop of stopAfter) await stop();
  db.destroy();
});

const shared = sharedStackEnv(inject);
/** Under the stock client's default $1 cap; no other file buys them. */
const SKILL = 'architecture-decision-record';
const PRICE = 250_000n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An anvil of the case's own with the tokens, the escrow, relayer key `relayerIndex` and operator `operatorIndex` funded. */
async function ownChain(relayerIndex: number, operatorIndex: number) {
  const anvil = await startAnvil({ port: 0, blockTime: 0 });
  stopAfter.push(anvil.stop);
  const [tokens, , relayer] = await Promise.all([
    ensureTestTokens(anvil.rpcUrl),
    ensureAuthCaptureEscrow(anvil.rpcUrl),
    ensureRelayer(anvil.rpcUrl, relayerIndex),
  ]);
  const operator = testAccount(operatorIndex);
  const chain = chainTools(anvil.rpcUrl);
  await chain.setEthBalance(operator.address, parseEther('10'));
  // As `npm start` has it: auth-capture is offered only while the operator delegates to its guard.
  await guardEscrowOperator(anvil.rpcUrl, operator);
  const env = {
    ...shared,
    RPC_URLS: anvil.rpcUrl,
    USDC_ADDRESS: tokens.USDC,
    USDBC_ADDRESS: tokens.USDbC,
    RELAYER_PRIVATE_KEYS: relayer.privateKey,
    ESCROW_OPERATOR_PRIVATE_KEY: operator.privateKey,
  };
  const balance = (who: Address) => chain.pub.readContract({ address: tokens.USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  return { anvil, tokens, chain, env, operator, balance };
}

/** A signed escrow payment for the skill's live challenge (a stock client registered for auth-capture only), not sent yet. */
async function escrowPayment(url: string, buyer: ReturnType<typeof privateKeyToAccount>) {
  const http402 = new x402HTTPClient(new x402Client().register('eip155:8453', new AuthCaptureEvmScheme(buyer)));
  const challenge = await fetch(url);
  const required = http402.getPaymentRequiredResponse((name) => challenge.headers.get(name));
  const payload = await http402.createPaymentPayload(required);
  return { payload, header: http402.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']! };
}

/** The escrow's events of a transaction, by name. */
const escrowEvents = async (chain: ReturnType<typeof chainTools>, tx: Hex) =>
  parseEventLogs({ abi: AUTH_CAPTURE_ESCROW_ABI, logs: (await chain.pub.getTransactionReceipt({ hash: tx })).logs }).map(
    (l) => l.eventName,
  );

/** The payer's settlement records and ledger rows, as stored. */
async function stored(payer: string) {
  const settlements: Record<string, any>[] = [];
  for await (const raw of scanItems(db, tableName(SETTLEMENTS_TABLE, {}))) {
    const item = unmarshall(raw);
    if (item['payer'] === payer.toLowerCase()) settlements.push(item);
  }
  const rows: Record<string, any>[] = [];
  for await (const raw of scanItems(db, tableName(LEDGER_TABLE, {}))) {
    const item = unmarshall(raw);
    if (typeof item['payer'] === 'string' && item['payer'].toLowerCase() === payer.toLowerCase()) rows.push(item);
  }
  return { settlements, rows };
}

describe('an escrowed payment whose pack cannot be delivered', () => {
  it('answers a retryable 503, voids it (the buyer gets everything back on chain) and writes no ledger row', async () => {
    const { chain, env, tokens, balance } = await ownChain(47, 154);
    const buyer = privateKeyToAccount(generatePrivateKey());
    await chain.setTokenBalance(tokens.USDC, buyer.address, 10n ** 9n);
    // The functions' packs: an empty directory, as if the pack store were unreachable.
    const empty = mkdtempSync(join(tmpdir(), 'no-packs-'));
    await withStarted({ ...env, SEALED_DATA_DIR: empty, VERSIONS_DATA_DIR: empty }, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=${SKILL}`;
      const { header } = await escrowPayment(url, buyer);
      const before = await balance(buyer.address);
      const res = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(503);
      expect(body, JSON.stringify(body)).toMatchObject({ ok: false, retry: true, details: { voided: true } });

      // On chain: the operator authorized, then voided; the buyer holds what it held.
      const { settlements, rows } = await stored(buyer.address);
      expect(settlements).toHaveLength(1);
      const record = settlements[0]!;
      expect(record).toMatchObject({ state: 'settled', scheme: 'auth-capture', escrowStage: 'voided' });
      expect(await escrowEvents(chain, record['txHash'])).toContain('PaymentAuthorized');
      expect(await escrowEvents(chain, record['voidTx'])).toContain('PaymentVoided');
      expect(body.details.void_tx.toLowerCase()).toBe(record['voidTx'].toLowerCase());
      expect(await balance(buyer.address)).toBe(before);
      expect(rows).toEqual([]);

      // The same payment again: voided, never delivered nor charged.
      const again = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const second = (await again.json()) as any;
      expect(again.status, JSON.stringify(second)).toBe(402);
      expect(second.details.reason).toBe('payment_voided');
      expect(await balance(buyer.address)).toBe(before);
    });
  }, 120_000);
});

describe('an escrowed payment whose service stopped after authorize', () => {
  it('the buyer reclaims it with viem once the capture deadline passes; the service, started again, delivers and records nothing for it', async () => {
    const { chain, env, tokens, balance, anvil, operator } = await ownChain(48, 155);
    const buyer = privateKeyToAccount(generatePrivateKey());
    await chain.setTokenBalance(tokens.USDC, buyer.address, 10n ** 9n);
    await chain.setEthBalance(buyer.address, parseEther('1'));
    const before = await balance(buyer.address);
    const treasuryBefore = await balance(inject('treasury') as Address);

    // The service keeps its address across the restart, as a deployment does (the payment names its resource URL).
    const port = String(await freePort());
    const first = await runStart({ ...env, PORT: port });
    const url = `${first.baseUrl}/api/pay?skill=${SKILL}`;
    const { payload, header } = await escrowPayment(url, buyer);
    // No block while the request waits for its authorize to be mined; the service is stopped then.
    await chain.test.setAutomine(false);
    void fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } }).catch(() => undefined);
    let pending: Hex | undefined;
    for (let waited = 0; !pending && waited < 20_000; waited += 100) {
      await sleep(100);
      const block = await chain.pub.getBlock({ blockTag: 'pending', includeTransactions: true });
      // The operator's authorize goes to its own account, which delegates to its guard.
      pending = block.transactions.find((t) => t.to?.toLowerCase() === operator.address.toLowerCase())?.hash;
    }
    expect(pending).toBeDefined();
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await chain.mine(1);
    await chain.test.setAutomine(true);
    expect(await escrowEvents(chain, pending!)).toContain('PaymentAuthorized');
    expect(await balance(buyer.address)).toBe(before - PRICE);

    // The buyer's PaymentInfo, from what it signed: the challenge's terms, its salt, its authorization's end.
    const accepted = payload.accepted as any;
    const auth = (payload.payload as any).authorization;
    const paymentInfo = {
      operator: accepted.extra.captureAuthorizer as Address,
      payer: buyer.address,
      receiver: accepted.payTo as Address,
      token: accepted.asset as Address,
      maxAmount: BigInt(accepted.amount),
      preApprovalExpiry: Number(auth.validBefore),
      authorizationExpiry: accepted.extra.captureDeadline as number,
      refundExpiry: accepted.extra.refundDeadline as number,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeReceiver: accepted.extra.feeRecipient as Address,
      salt: BigInt((payload.payload as any).salt),
    };
    const wallet = createWalletClient({ account: buyer, chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
    const reclaim = () =>
      wallet.writeContract({
        address: LOCAL_AUTH_CAPTURE_ESCROW,
        abi: AUTH_CAPTURE_ESCROW_ABI,
        functionName: 'reclaim',
        args: [paymentInfo],
      });
    // Before the deadline the escrow refuses the payer.
    await expect(reclaim()).rejects.toThrow();
    // Past it, the payer alone takes everything back.
    const head = await chain.pub.getBlock();
    await chain.test.increaseTime({ seconds: paymentInfo.authorizationExpiry - Number(head.timestamp) + 1 });
    await chain.mine(1);
    const reclaimed = await chain.pub.waitForTransactionReceipt({ hash: await reclaim() });
    expect(reclaimed.status).toBe('success');
    expect(await escrowEvents(chain, reclaimed.transactionHash)).toContain('PaymentReclaimed');
    expect(await balance(buyer.address)).toBe(before);

    // Started again (once the dead instance's lease on the operator key has run out): the same payment gets nothing.
    await sleep(Math.max(0, 21_000 - (Date.now() - killedAt)));
    await withStarted({ ...env, PORT: port }, async (s) => {
      const res = await fetch(`${s.baseUrl}/api/pay?skill=${SKILL}`, { headers: { 'PAYMENT-SIGNATURE': header } });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(402);
      // The service's clock is not past the deadline (the test moved the chain's): the escrow's own record decides.
      expect(body.details.reason).toBe('payment_not_in_escrow');
    });
    const { rows } = await stored(buyer.address);
    expect(rows).toEqual([]);
    expect(await balance(buyer.address)).toBe(before);
    expect(await balance(inject('treasury') as Address)).toBe(treasuryBefore);
  }, 180_000);
});
