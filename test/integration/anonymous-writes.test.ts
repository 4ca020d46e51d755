/**
 * Issue 31, finding 5 (goal 5, "anonymous writes are bounded"), through the shared local stack: a
 * flood of intent bounties from one address, and bounties that never expired. Callers are told
 * apart by their loopback source address (all of 127.0.0.0/8 on Linux); rows are read straight
 * from the stack's dynalite.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoIntentStore } from '../../lambdas/catalog/adapters/dynamo-intent-store';
import { INTENT_LIFETIME_DAYS, INTENTS_PER_CALLER_PER_DAY } from '../../lambdas/contract/intent-schema';
import { INTENTS_TABLE, tableName } from '../../lambdas/contract/tables';
import { requestFrom } from '../support/source-address';

const base = inject('baseUrl');
const db = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const INTENTS = tableName(INTENTS_TABLE, {});
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
    expect(limited.body).toMatchObject({
      ok: false,
      error: 'rate_limited',
      error_code: 'RATE_LIMITED',
      message: expect.any(String),
      retry: true,
      tip: expect.any(String),
      details: { scope: 'intent', limit: 20, window_seconds: 60 },
    });
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
      // Past its TTL, not yet deleted (DynamoDB takes up to a day or two; dynalite never does).
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
