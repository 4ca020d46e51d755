/**
 * Issue 31, findings 5 and 9 (goal 5, "anonymous writes are bounded"), through the shared local
 * stack: a flood of intent bounties from one address, bounties that never expired, and sign-ins
 * from fresh wallets that each wrote a Nonces row although they were given nothing. Callers are
 * told apart by their loopback source address (all of 127.0.0.0/8 on Linux); rows are read
 * straight from the stack's DynamoDB Local.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { createWalletClient, erc20Abi, http, parseEther, type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamoIntentStore } from '../../lambdas/catalog/adapters/dynamo-intent-store';
import { INTENT_LIFETIME_DAYS, INTENTS_PER_CALLER_PER_DAY } from '../../lambdas/contract/intent-schema';
import { nonceHex, signInWithXFields, siweParameters } from '../../lambdas/contract/sign-in-with-x';
import { INTENTS_TABLE, NONCES_TABLE } from '../../lambdas/contract/tables';
import { tableName } from '../../lambdas/platform/table-names';
import { localChain } from '../../local/local-chain';
import { signInWithXHeader } from '../../local/sign-in-with-x';
import { scanItems } from '../../lambdas/platform/adapters/dynamo-client';
import { chainTools } from '../support/chain';
import { requestFrom } from '../support/source-address';
import { rateLimitedBody } from '../support/failure-bodies';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const db = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const INTENTS = tableName(INTENTS_TABLE, {});
const NONCES = tableName(NONCES_TABLE, {});
const DAY_MS = 86_400_000;
afterAll(() => db.destroy());

const JSON_HEADERS = { 'content-type': 'application/json' };
const bounty = (title: string) => JSON.stringify({ title, success_criteria: ['every row has 12 columns'] });
const postFrom = (from: string, body: string) => requestFrom(from, `${base}/api/intent`, { method: 'POST', headers: JSON_HEADERS, body });

/** Every bounty GET /api/intent?list=1 lists, page by page. */
async function listedIds(): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await fetch(`${base}/api/intent?list=1&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    // Served, but never as confirmed: a bounty is a request in its poster's words.
    expect(body).toMatchObject({ confirmed: false, note: expect.stringMatching(/unconfirmed/) });
    ids.push(...body.intents.map((i: { id: string }) => i.id));
    cursor = body.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

describe('intent bounties are bounded (finding 5)', () => {
  it("a flood from one address gets 429 with Retry-After and the spec's body after 20 in a minute; another address is served", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await postFrom('127.0.0.31', bounty(`Flood bounty ${i}`))).status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const limited = await postFrom('127.0.0.31', bounty('One too many'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject(rateLimitedBody({ scope: 'intent', limit: 20, window_seconds: 60 }));
    const other = await postFrom('127.0.0.32', bounty('A need from someone else'));
    expect(other.status, other.text).toBe(200);
  });

  it('a bounty answers with expires_at 30 days on, and its row carries the TTL attribute (epoch seconds)', async () => {
    const posted = await postFrom('127.0.0.32', bounty('Expiring bounty'));
    expect(posted.status, posted.text).toBe(200);
    const { id, created_at, expires_at } = posted.body.intent;
    expect(Date.parse(expires_at) - Date.parse(created_at)).toBe(INTENT_LIFETIME_DAYS * DAY_MS);
    const row = unmarshall((await db.send(new GetItemCommand({ TableName: INTENTS, Key: marshall({ id }) }))).Item!);
    expect(row['expiresAt']).toBe(Math.floor(Date.parse(expires_at) / 1000));
    expect((await (await fetch(`${base}/api/intent?id=${id}`)).json()) as any).toMatchObject({ intent: { id, expires_at } });
  });

  it('an expired bounty is neither listed nor served, while one stored before bounties expired still reads', async () => {
    const now = Date.now();
    const id = () => `int_${randomBytes(10).toString('hex')}`;
    const item = (created: number, extra: Record<string, unknown> = {}) => {
      const i = { id: id(), created_at: new Date(created).toISOString(), status: 'open', title: 'Stored', success_criteria: ['it works'] };
      return { ...i, suggested_skills: [], gsi1pk: 'INTENT', gsi1sk: `${i.created_at}#${i.id}`, ...extra };
    };
    const lapsed = new Date(now - DAY_MS).toISOString();
    const rows = {
      // Past its TTL, not yet deleted (DynamoDB takes up to a day or two; the local run never does).
      expired: item(now - 31 * DAY_MS, { expires_at: lapsed, expiresAt: Math.floor((now - DAY_MS) / 1000) }),
      // Recent, but its own expiry has passed.
      expiredEarly: item(now - 60_000, { expires_at: new Date(now - 1000).toISOString(), expiresAt: Math.floor(now / 1000) - 1 }),
      // From before the TTL (no expiry stored): expires by its created_at.
      oldAndStale: item(now - 31 * DAY_MS),
      oldAndFresh: item(now - 60_000),
    };
    for (const r of Object.values(rows)) await db.send(new PutItemCommand({ TableName: INTENTS, Item: marshall(r) }));

    for (const r of [rows.expired, rows.expiredEarly, rows.oldAndStale]) {
      const res = await fetch(`${base}/api/intent?id=${r.id}`);
      expect(res.status, r.created_at).toBe(404);
      expect(((await res.json()) as any).error_code).toBe('not_found');
    }
    const fresh = (await (await fetch(`${base}/api/intent?id=${rows.oldAndFresh.id}`)).json()) as any;
    expect(fresh.intent).toMatchObject({
      id: rows.oldAndFresh.id,
      created_at: rows.oldAndFresh.created_at,
      expires_at: new Date(Date.parse(rows.oldAndFresh.created_at) + INTENT_LIFETIME_DAYS * DAY_MS).toISOString(),
      status: 'open',
      success_criteria: ['it works'],
    });
    expect(fresh.intent).not.toHaveProperty('gsi1pk');
    expect(fresh.confirmed).toBe(false);

    const listed = await listedIds();
    expect(listed).toContain(rows.oldAndFresh.id);
    for (const r of [rows.expired, rows.expiredEarly, rows.oldAndStale]) expect(listed).not.toContain(r.id);
  });

  it(`one caller's bounties per UTC day are capped at ${INTENTS_PER_CALLER_PER_DAY}, exactly, under concurrency; another caller and the next day start afresh`, async () => {
    const store = dynamoIntentStore(db, () => new Date(), INTENTS);
    const caller = `test-${randomBytes(8).toString('hex')}`;
    const day = new Date('2026-11-20T12:00:00Z');
    const admitted = await Promise.all(
      Array.from({ length: INTENTS_PER_CALLER_PER_DAY + 15 }, () => store.admit(caller, day, INTENTS_PER_CALLER_PER_DAY)),
    );
    expect(admitted.filter(Boolean)).toHaveLength(INTENTS_PER_CALLER_PER_DAY);
    expect(await store.admit(`${caller}-other`, day, INTENTS_PER_CALLER_PER_DAY)).toBe(true);
    expect(await store.admit(caller, new Date('2026-11-21T00:00:01Z'), INTENTS_PER_CALLER_PER_DAY)).toBe(true);
  });
});

describe('sign-ins that grant nothing store nothing (finding 9)', () => {
  const SKILL = 'sql-query-result-verifier';
  const chain = chainTools(rpcUrl);
  const nonceOf = (header: string): string => (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { nonce: string }).nonce;
  const nonceRow = async (address: string, nonce: string) =>
    (
      await db.send(
        new GetItemCommand({ TableName: NONCES, Key: marshall({ pk: `${address.toLowerCase()}#${nonce}` }), ConsistentRead: true }),
      )
    ).Item;
  const getPay = (header: string, from = '127.0.0.33') =>
    requestFrom(from, `${base}/api/pay?skill=${SKILL}`, { headers: { 'SIGN-IN-WITH-X': header } });
  const postPay = (header: string, from = '127.0.0.33') =>
    requestFrom(from, `${base}/api/pay?skill=${SKILL}`, { method: 'POST', headers: { 'SIGN-IN-WITH-X': header } });

  it('25 fresh wallets signing in on GET and POST /api/pay get the challenge and the access decision, and write 0 Nonces rows', async () => {
    const wallets: { address: string; nonce: string }[] = [];
    for (let i = 0; i < 25; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const header = await signInWithXHeader({ account, baseUrl: base, skill: SKILL });
      // The same signature on both routes: nothing was given, so nothing used it up.
      const challenge = await getPay(header);
      expect(challenge.status, challenge.text).toBe(402);
      expect(challenge.body).toMatchObject({ error_code: 'PAYMENT_REQUIRED', skill: SKILL });
      expect(challenge.headers['payment-required']).toEqual(expect.any(String));
      const decision = await postPay(header);
      expect(decision.status, decision.text).toBe(402);
      expect(decision.body).toMatchObject({ ok: false, error_code: 'PAYMENT_REQUIRED', details: { access: { granted: false } } });
      wallets.push({ address: account.address, nonce: nonceOf(header) });
    }
    for (const w of wallets) expect(await nonceRow(w.address, w.nonce), w.address).toBeUndefined();
    const fresh = new Set(wallets.map((w) => w.address.toLowerCase()));
    let rows = 0;
    for await (const item of scanItems(db, NONCES)) if (fresh.has(String(item['pk']?.S).split('#')[0]!)) rows++;
    expect(rows).toBe(0);
  });

  describe('a wallet that paid', () => {
    let buyer: LocalAccount;
    beforeAll(async () => {
      buyer = privateKeyToAccount(generatePrivateKey());
      const price = BigInt(((await (await fetch(`${base}/api/pay?skill=${SKILL}`)).json()) as any).maxAmountRequired);
      await chain.setEthBalance(buyer.address, parseEther('1'));
      await chain.setTokenBalance(USDC, buyer.address, price);
      const wallet = createWalletClient({ account: buyer, chain: localChain(rpcUrl), transport: http(rpcUrl) });
      const hash = await wallet.writeContract({ address: USDC, abi: erc20Abi, functionName: 'transfer', args: [TREASURY, price] });
      await chain.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      const unlock = await requestFrom('127.0.0.34', `${base}/api/pay`, {
        method: 'POST',
        headers: { 'x-payment': JSON.stringify({ txHash: hash, skill: SKILL }) },
      });
      expect(unlock.status, unlock.text).toBe(200);
    }, 30_000);

    it('gets its pack by signing in on GET /api/pay once: its nonce row is written, and the same signature, even sent 5 times at once, is refused', async () => {
      const header = await signInWithXHeader({ account: buyer, baseUrl: base, skill: SKILL });
      const answers = await Promise.all(Array.from({ length: 5 }, () => getPay(header)));
      const served = answers.filter((a) => a.status === 200);
      expect(served, answers.map((a) => a.text).join('\n')).toHaveLength(1);
      expect(Object.keys(served[0]!.body.sealed_pack.files)).toContain('SKILL.md');
      expect(served[0]!.body.payment.payer.toLowerCase()).toBe(buyer.address.toLowerCase());
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(403);
        expect(a.body).toMatchObject({ ok: false, error_code: 'INVALID_WALLET_SIGNATURE' });
      }
      expect(await nonceRow(buyer.address, nonceOf(header))).toBeDefined();
      const replayed = await getPay(header, '127.0.0.35');
      expect(replayed.status).toBe(403);
      expect(replayed.body.error_code).toBe('INVALID_WALLET_SIGNATURE');
    });

    it('gets it by signing POST /api/pay (access by its purchase) once; the replayed signature is refused', async () => {
      const header = await signInWithXHeader({ account: buyer, baseUrl: base, skill: SKILL });
      const first = await postPay(header);
      expect(first.status, first.text).toBe(200);
      expect(Object.keys(first.body.sealed_pack.files)).toContain('SKILL.md');
      expect(await nonceRow(buyer.address, nonceOf(header))).toBeDefined();
      const replayed = await postPay(header, '127.0.0.35');
      expect(replayed.status).toBe(403);
      expect(replayed.body).toMatchObject({ ok: false, error_code: 'INVALID_WALLET_SIGNATURE' });
    });

    it("a signature by another wallet in the payer's name gets nothing and writes nothing", async () => {
      const forger = privateKeyToAccount(generatePrivateKey());
      const fields = signInWithXFields({
        baseUrl: base,
        skill: SKILL,
        address: buyer.address,
        issuedAt: new Date(),
        nonce: nonceHex(crypto.getRandomValues(new Uint8Array(12))),
      });
      const signature = await forger.signMessage({ message: createSiweMessage(siweParameters(fields)) });
      const header = Buffer.from(JSON.stringify({ ...fields, signature })).toString('base64');
      for (const send of [getPay, postPay]) {
        const res = await send(header, '127.0.0.36');
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ ok: false, error_code: 'INVALID_WALLET_SIGNATURE' });
      }
      expect(await nonceRow(buyer.address, fields.nonce)).toBeUndefined();
    });
  });
});
