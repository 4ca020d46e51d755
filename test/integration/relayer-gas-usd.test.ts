/**
 * The relayer's gas in US dollars (docs/FINANCE.md, "The relayer's gas in US dollars"): a stock
 * x402 v2 client (`@x402/fetch`) buys through the local stack, the service's relayer settles
 * it, and the Settlements item holds the ETH / USD round of the local test feed (placed at
 * Chainlink's Base address) as it was at the receipt's block, and the gas in micro-dollars
 * derived from the stored gas and answer. `npm run export` carries the same fields.
 *
 * This is the only file that sets the local feed's answer, from the feed's own owner account.
 * The buyer is a fresh random wallet; the skill is one no other test file buys.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import type { Address, Hex } from 'viem';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { scanItems } from '../../lambdas/platform/adapters/dynamo-client';
import { tableName } from '../../lambdas/platform/table-names';
import { SETTLEMENTS_TABLE } from '../../lambdas/contract/tables';
import { EXPORTED_TABLES } from '../../lambdas/contract/finance-export';
import { exportTable } from '../../local/export';
import { LOCAL_ETH_USD_FEED, TEST_PRICE_FEED_ABI } from '../../local/price-feed';
import { chainTools } from '../support/chain';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const chain = chainTools(rpcUrl);
const db = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const SETTLEMENTS = tableName(SETTLEMENTS_TABLE, {});
const dir = mkdtempSync(join(tmpdir(), 'relayer-gas-usd-'));
afterAll(() => {
  db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A $0.25 skill no other test file buys. */
const SKILL = 'usdc-atomic-unit-audit';
const PRICE_FIELDS = ['ethUsdFeed', 'ethUsdRound', 'ethUsdAnswer', 'ethUsdDecimals', 'ethUsdUpdatedAt', 'gasCostUsdMicro'] as const;

/** The buyer's settlement item(s) for the skill, as stored. */
const settlementsOf = async (payer: Address) => {
  const items: Record<string, any>[] = [];
  for await (const raw of scanItems(db, SETTLEMENTS)) {
    const item = unmarshall(raw);
    if (item['payer'] === payer.toLowerCase() && item['skill'] === SKILL) items.push(item);
  }
  return items;
};

describe("the relayer's gas in US dollars", () => {
  it("records the feed's round at the receipt's block and the gas in micro-dollars from the stored gas and answer; the export carries them", async () => {
    // A price of this run's own (8 decimals, odd cents so rounding shows): a new round of the local feed.
    const answer = 2_987_65432100n + BigInt(Math.floor(Math.random() * 1e8));
    const set = await chain.setEthUsdAnswer(answer);

    const buyer = await chain.freshWallet(USDC, 10n ** 9n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${SKILL}`);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const txHash = body.payment.txHash as Hex;

    const [item] = await settlementsOf(buyer.address);
    expect(item).toMatchObject({ state: 'settled', txHash: txHash.toLowerCase() });
    const receipt = await chain.pub.getTransactionReceipt({ hash: txHash });
    expect(receipt.blockNumber).toBeGreaterThan(set.blockNumber);
    expect(item!['gasCostWei']).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString());

    // The feed's round as it was at the receipt's block, read here on its own.
    const [roundId, roundAnswer, , updatedAt] = (await chain.pub.readContract({
      address: LOCAL_ETH_USD_FEED,
      abi: TEST_PRICE_FEED_ABI,
      functionName: 'latestRoundData',
      blockNumber: receipt.blockNumber,
    })) as [bigint, bigint, bigint, bigint, bigint];
    expect(roundId).toBe(set.roundId);
    expect(roundAnswer).toBe(answer);
    expect(item).toMatchObject({
      ethUsdFeed: LOCAL_ETH_USD_FEED,
      ethUsdRound: roundId.toString(),
      ethUsdAnswer: answer.toString(),
      ethUsdDecimals: 8,
      ethUsdUpdatedAt: new Date(Number(updatedAt) * 1000).toISOString(),
    });

    // gasCostWei × answer / 10^(18 + decimals − 6), half up, from the item's own stored facts.
    const divisor = 10n ** BigInt(18 + Number(item!['ethUsdDecimals']) - 6);
    const expected = (BigInt(item!['gasCostWei']) * BigInt(item!['ethUsdAnswer']) * 2n + divisor) / (2n * divisor);
    expect(item!['gasCostUsdMicro']).toBe(expected.toString());
    expect(BigInt(item!['gasCostUsdMicro'])).toBeGreaterThan(0n);

    // `npm run export`'s writer: the settlements export holds the item with the same fields.
    const settlementsExport = EXPORTED_TABLES.find((t) => t.table === SETTLEMENTS_TABLE)!;
    for (const field of PRICE_FIELDS) expect(settlementsExport.fields).toHaveProperty(field);
    const dataDir = join(await exportTable(db, settlementsExport, dir, new Date()), 'data');
    const exported = readdirSync(dataDir)
      .flatMap((f) =>
        gunzipSync(readFileSync(join(dataDir, f)))
          .toString('utf8')
          .trim()
          .split('\n'),
      )
      .map((line) => unmarshall(JSON.parse(line).Item))
      .find((i) => i['pk'] === item!['pk']);
    for (const field of PRICE_FIELDS) expect(exported?.[field], field).toEqual(item![field]);
  });
});
