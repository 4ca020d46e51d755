/**
 * A relayed transfer whose receipt comes after the request stopped waiting for it (RECEIPT_WAIT_MS):
 * the request answers 402 `settlement_pending` and hands the transaction to the confirmation loop,
 * which claims it for the buyer once mined and ends the x402 settlement that sent it (its gas
 * written, the payer's hold released), as the request would have. Without that end a delivered
 * sale stayed "in flight" and the StuckSettlements alarm counted it ten minutes later.
 *
 * `npm start`'s entry on an anvil of the test's own with automine off, so the test decides when the
 * block comes; the local loop is the same task the state machine runs (payments' confirmation.ts).
 * The buyer is a fresh random wallet; the relayer is this file's own key (index 42), so no other
 * file's pool leases it.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { wrapFetchWithPayment as wrapFetchWithPaymentV1 } from 'x402-fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { erc20Abi, type Hex, type LocalAccount } from 'viem';
import { ensureRelayer, ensureTestTokens, startAnvil } from '../../local/anvil';
import { scanItems } from '../../lambdas/platform/adapters/dynamo-client';
import { tableName } from '../../lambdas/platform/table-names';
import { SETTLEMENTS_TABLE } from '../../lambdas/contract/tables';
import { chainTools } from '../support/chain';
import { killStarted, sharedStackEnv, withStarted } from '../support/spawn-start';

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
const SETTLEMENTS = tableName(SETTLEMENTS_TABLE, {});
/** A skill no other test file names. */
const SKILL = 'ap-three-way-match';
/** The README snippets' own skill, under x402-fetch's default cap of 0.1 USDC; other files count its rows per transfer only. */
const PENDING_SKILL = 'proof-ledger-publisher';
const PENDING_PRICE = 99000n;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The payer's settlement of the skill, as stored (one: the buyer is fresh). */
async function settlementOf(payer: string): Promise<Record<string, any> | undefined> {
  for await (const raw of scanItems(db, SETTLEMENTS)) {
    const item = unmarshall(raw);
    if (item['payer'] === payer.toLowerCase() && item['skill'] === SKILL) return item;
  }
  return undefined;
}

/** The payer's item of the settlements table: what it has in flight (its holds). */
async function payerHolds(payer: string): Promise<string[]> {
  const out = await db.send(
    new GetItemCommand({ TableName: SETTLEMENTS, Key: marshall({ pk: `PAYER#${payer.toLowerCase()}` }), ConsistentRead: true }),
  );
  const held = out.Item ? (unmarshall(out.Item)['held'] as Set<string> | undefined) : undefined;
  return [...(held ?? [])];
}

/**
 * An anvil of the case's own (no block interval: the case decides when blocks come), the test tokens, and
 * relayer key `relayerIndex` (a pool of one), with the environment a stack started on it takes.
 */
async function ownChain(relayerIndex: number) {
  const anvil = await startAnvil({ port: 0, blockTime: 0 });
  stopAfter.push(anvil.stop);
  const tokens = await ensureTestTokens(anvil.rpcUrl);
  const relayer = await ensureRelayer(anvil.rpcUrl, relayerIndex);
  const chain = chainTools(anvil.rpcUrl);
  const env = { ...shared, RPC_URLS: anvil.rpcUrl, USDC_ADDRESS: tokens.USDC, RELAYER_PRIVATE_KEYS: relayer.privateKey };
  return { tokens, relayer, chain, env };
}

describe('a receipt later than the request waits for it', () => {
  it('the confirmation loop claims the transfer for its buyer and ends the settlement: its gas written, the hold released, nothing in flight', async () => {
    const { tokens, chain, env } = await ownChain(42);
    const buyer = privateKeyToAccount(generatePrivateKey());
    await chain.setTokenBalance(tokens.USDC, buyer.address, 10n ** 9n);

    await withStarted(env, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=${SKILL}`;
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: buyer });
      const http402 = new x402HTTPClient(client);
      const challenge = await fetch(url);
      const required = http402.getPaymentRequiredResponse((name) => challenge.headers.get(name));
      const header = http402.encodePaymentSignatureHeader(await http402.createPaymentPayload(required))['PAYMENT-SIGNATURE']!;

      // No block comes while the request waits: it gives the transaction to the loop.
      await chain.test.setAutomine(false);
      const res = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(402);
      expect(body).toMatchObject({ retry: true, details: { reason: 'settlement_pending' } });
      const sent = await settlementOf(buyer.address);
      expect(sent).toMatchObject({ state: 'signed' });
      expect(await payerHolds(buyer.address)).toHaveLength(1);

      await chain.mine(1);
      await chain.test.setAutomine(true);
      // The local loop tries after 2, 4, 8 and 16 s.
      let ended = sent;
      for (let waited = 0; ended?.['state'] === 'signed' && waited < 40_000; waited += 500) {
        await sleep(500);
        ended = await settlementOf(buyer.address);
      }
      const receipt = await chain.pub.getTransactionReceipt({ hash: sent!['txHash'] as Hex });
      expect(receipt.status).toBe('success');
      expect(ended).toMatchObject({ state: 'settled', gasCostWei: (receipt.gasUsed * receipt.effectiveGasPrice).toString() });
      expect(ended!['inFlightShard']).toBeUndefined();
      expect(await payerHolds(buyer.address)).toEqual([]);

      // The buyer's claim: the same header again gets the pack, charged once.
      const again = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      const pack = (await again.json()) as any;
      expect(again.status, JSON.stringify(pack)).toBe(200);
      expect(pack.payment).toMatchObject({ txHash: receipt.transactionHash.toLowerCase(), payer: buyer.address });
    });
  }, 90_000);
});

describe('a buyer who calls again while its settlement is pending (issue 50, finding 1, I6)', () => {
  it("the README's v2 and v1 snippets called twice while blocks are slower than the server's wait: charged once, and the second call gets the pack once the first is mined", async () => {
    // A key of this case's own: the stack of the case above leaves its key leased for a while.
    const { tokens, relayer, chain, env } = await ownChain(44);
    const balance = (who: Hex) => chain.pub.readContract({ address: tokens.USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

    await withStarted(env, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=${PENDING_SKILL}`;
      // The README's snippets as written (x402-fetch-v2, x402-fetch-v1): a stock client, a viem account holding USDC.
      const snippets: Record<string, (account: LocalAccount) => Promise<Response>> = {
        'x402-fetch-v2': (account) => {
          const client = new x402Client();
          registerExactEvmScheme(client, { signer: account });
          return wrapFetchWithPayment(fetch, client)(url);
        },
        'x402-fetch-v1': (account) => wrapFetchWithPaymentV1(fetch, account)(url),
      };
      for (const [name, snippet] of Object.entries(snippets)) {
        const buyer = privateKeyToAccount(generatePrivateKey());
        await chain.setTokenBalance(tokens.USDC, buyer.address, 10n ** 9n);
        const start = await balance(buyer.address);
        const sentBefore = await chain.pub.getTransactionCount({ address: relayer.address, blockTag: 'pending' });
        // Blocks slower than the server waits: the first call's transfer is sent and not mined in time.
        await chain.test.setAutomine(false);
        const first = await snippet(buyer);
        const firstBody = (await first.json()) as any;
        expect(first.status, `${name}: ${JSON.stringify(firstBody)}`).toBe(402);
        expect(firstBody).toMatchObject({ retry: true, details: { reason: 'settlement_pending' } });
        const pendingTx = firstBody.details.transaction as string;
        expect(pendingTx).toMatch(/^0x[0-9a-f]{64}$/);
        // No fresh challenge rides on it: nothing for a client to pay again.
        expect(first.headers.get('payment-required'), name).toBeNull();

        // Called again as `retry: true` invites, before the block: the stock client signs a new
        // authorization; the service sends nothing for it and answers with the first once it is mined.
        const second = snippet(buyer);
        await sleep(3_000);
        await chain.mine(1);
        await chain.test.setAutomine(true);
        const res = await second;
        const body = (await res.json()) as any;
        expect(res.status, `${name}: ${JSON.stringify(body)}`).toBe(200);
        expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
        expect(body.payment.txHash, name).toBe(pendingTx);
        // Charged once: one relayed transfer, one price.
        expect(await chain.pub.getTransactionCount({ address: relayer.address, blockTag: 'pending' }), name).toBe(sentBefore + 1);
        expect(await balance(buyer.address), name).toBe(start - PENDING_PRICE);
      }
    });
  }, 120_000);
});
