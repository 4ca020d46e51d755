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
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
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

describe('a receipt later than the request waits for it', () => {
  it('the confirmation loop claims the transfer for its buyer and ends the settlement: its gas written, the hold released, nothing in flight', async () => {
    const anvil = await startAnvil({ port: 0, blockTime: 0 });
    stopAfter.push(anvil.stop);
    const tokens = await ensureTestTokens(anvil.rpcUrl);
    const relayer = await ensureRelayer(anvil.rpcUrl, 42);
    const chain = chainTools(anvil.rpcUrl);
    const buyer = privateKeyToAccount(generatePrivateKey());
    await chain.setTokenBalance(tokens.USDC, buyer.address, 10n ** 9n);
    const env = { ...shared, RPC_URLS: anvil.rpcUrl, USDC_ADDRESS: tokens.USDC, RELAYER_PRIVATE_KEYS: relayer.privateKey };

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
