import { describe, expect, inject, it } from 'vitest';

const base = inject('baseUrl');
const get = async (path: string, init?: RequestInit) => {
  const res = await fetch(`${base}${path}`, init);
  return { res, body: (await res.json()) as any };
};

describe('GET /catalog.json', () => {
  it('serves 250 valid skills with a strong ETag, answers 304 to it, and caches briefly', async () => {
    const res = await fetch(`${base}/catalog.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const catalog = (await res.json()) as { count: number; skills: { id: string; price_label: string }[] };
    expect(catalog.count).toBe(250);
    expect(catalog.skills).toHaveLength(250);
    for (const s of catalog.skills) expect(s.price_label).toMatch(/^\$\d/);
    const again = await fetch(`${base}/catalog.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const changed = await fetch(`${base}/catalog.json`, { headers: { 'if-none-match': '"0000"' } });
    expect(changed.status).toBe(200);
  });
});

describe('free evaluation files', () => {
  it('has an outline and a sample for every skill', async () => {
    const catalog = (await (await fetch(`${base}/catalog.json`)).json()) as { skills: { id: string; outline: string; sample: string }[] };
    for (const s of catalog.skills) {
      const [o, m] = await Promise.all([fetch(`${base}${s.outline}`), fetch(`${base}${s.sample}`)]);
      expect(o.status, s.outline).toBe(200);
      expect(((await o.json()) as { skill_id: string }).skill_id).toBe(s.id);
      expect(m.status, s.sample).toBe(200);
      expect(m.headers.get('content-type')).toMatch(/text\/markdown/);
      expect(await m.text()).toMatch(/^# /);
    }
  });

  it.each([
    '/skills/no-such-skill/outline.json',
    '/skills/csv-cleaner/SKILL.md',
    '/skills/../catalog/build.ts',
    '/skills/%2e%2e/%2e%2e/dist/sealed/packs.json',
  ])('404s %s', async (path) => {
    expect((await fetch(`${base}${path}`)).status).toBe(404);
  });
});

describe('GET /api/catalog', () => {
  it('honours max_price and limit, cheapest first without q', async () => {
    const { res, body } = await get('/api/catalog?max_price=0.1&limit=5');
    expect(res.status).toBe(200);
    expect(body.count).toBeLessThanOrEqual(5);
    expect(body.total).toBeGreaterThanOrEqual(body.count);
    const prices = body.results.map((r: any) => r.price_usd);
    for (const p of prices) expect(p).toBeLessThanOrEqual(0.1);
    expect([...prices].sort((a: number, b: number) => a - b)).toEqual(prices);
    expect(body.results[0].id).toBe('agent-x402-first-buy');
    expect(body.results[0].x402.resource).toBe(`${base}/api/pay?skill=agent-x402-first-buy`);
  });

  it('ranks by relevance to q within a category', async () => {
    const { body } = await get('/api/catalog?q=clean%20a%20messy%20csv%20file&category=data&limit=3');
    expect(body.order).toBe('relevance');
    expect(body.results[0].id).toBe('csv-cleaner');
    for (const r of body.results) expect(r.category).toBe('data');
  });

  it('defaults to 20 results', async () => {
    const { body } = await get('/api/catalog');
    expect(body.count).toBe(20);
    expect(body.total).toBe(250);
  });

  it.each([
    ['max_price=-1', 'max_price'],
    ['max_price=abc', 'max_price'],
    ['max_price=', 'max_price'],
    ['limit=0', 'limit'],
    ['limit=1e3', 'limit'],
    ['limit=2.5', 'limit'],
    ['category=nope', 'category'],
    [`q=${'x'.repeat(201)}`, 'q'],
  ])('answers %s with a JSON 400 naming the parameter', async (qs, param) => {
    const { res, body } = await get(`/api/catalog?${qs}`);
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST', details: { parameter: param } });
    expect(body.message).toContain(param);
  });
});

describe('GET /api/catalog pages with a cursor', () => {
  /** Every page of `query`, following next_cursor until it is null. */
  async function allPages(query: string): Promise<{ pages: any[]; ids: string[] }> {
    const pages: any[] = [];
    let url = `/api/catalog?${query}`;
    for (;;) {
      const { res, body } = await get(url);
      expect(res.status, JSON.stringify(body)).toBe(200);
      pages.push(body);
      if (body.next_cursor === null) break;
      expect(pages.length).toBeLessThan(30);
      url = `/api/catalog?cursor=${encodeURIComponent(body.next_cursor)}&limit=${body.query.limit}`;
    }
    return { pages, ids: pages.flatMap((p) => p.results.map((r: any) => r.id)) };
  }

  it('walks all 250 skills in three pages of 100, cheapest first, each once; the last page says so', async () => {
    const { pages, ids } = await allPages('limit=100');
    expect(pages.map((p) => p.count)).toEqual([100, 100, 50]);
    expect(new Set(ids).size).toBe(250);
    expect(pages.every((p) => p.total === 250)).toBe(true);
    expect(pages[2].next_cursor).toBeNull();
    expect(pages[0].next).toBe(`${base}/api/catalog?cursor=${encodeURIComponent(pages[0].next_cursor)}&limit=100`);
    const prices = pages.flatMap((p) => p.results.map((r: any) => r.price_usd));
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
  });

  it('keeps the query, filters and order in the cursor: the pages are the one long answer cut up', async () => {
    const whole = await get('/api/catalog?q=csv&max_price=1&limit=100');
    expect(whole.body.total).toBeGreaterThan(4);
    const { ids } = await allPages('q=csv&max_price=1&limit=3');
    expect(ids).toEqual(whole.body.results.map((r: any) => r.id));
    // The same parameters beside the cursor are fine; other ones are a cursor of another query.
    const first = await get('/api/catalog?q=csv&max_price=1&limit=3');
    const same = await get(`/api/catalog?q=csv&max_price=1&limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(same.res.status).toBe(200);
    expect(same.body.results.map((r: any) => r.id)).toEqual(ids.slice(3, 6));
    const other = await get(`/api/catalog?q=pdf&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(other.res.status).toBe(400);
    expect(other.body).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST', details: { parameter: 'cursor' } });
  });

  it('serves a limit over 100 as a page of 100 with a cursor to the rest, and says so', async () => {
    const { res, body } = await get('/api/catalog?limit=300');
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ total: 250, count: 100, query: { limit: 100 }, next_cursor: expect.any(String) });
    expect(body.note).toMatch(/100/);
  });

  it.each([
    ['offset=20', 'offset', 'cursor'],
    ['page=2', 'page', 'cursor'],
    ['page_token=abc', 'page_token', 'cursor'],
    ['after=csv-cleaner', 'after', 'cursor'],
    ['page_size=50', 'page_size', 'limit'],
    ['per_page=50', 'per_page', 'limit'],
    ['sort=price', 'sort', 'cursor'],
  ])('answers %s with a JSON 400 that names the parameter to use instead', async (qs, param, instead) => {
    const { res, body } = await get(`/api/catalog?${qs}`);
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ ok: false, error: 'invalid_request', error_code: 'INVALID_REQUEST', details: { parameter: param } });
    expect(body.message).toContain(param);
    expect(`${body.message} ${body.tip}`).toContain(`\`${instead}\``);
  });

  it.each(['nope', Buffer.from('{"o":5}').toString('base64url'), ''])(
    'answers cursor=%s, not one it issued, with a JSON 400',
    async (c) => {
      const { res, body } = await get(`/api/catalog?cursor=${c}`);
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST', details: { parameter: 'cursor' } });
    },
  );
});

describe('GET /api/packs', () => {
  it('gives paths, sizes, hashes and the seal, never the text', async () => {
    const { res, body } = await get('/api/packs?skill=csv-cleaner');
    expect(res.status).toBe(200);
    expect(body.files.map((f: any) => f.path)).toContain('SKILL.md');
    for (const f of body.files) expect(Object.keys(f).sort()).toEqual(['bytes', 'path', 'sha256']);
    expect(body.seal.value).toMatch(/^[0-9a-f]{64}$/);
    const outline = (await (await fetch(`${base}/skills/csv-cleaner/outline.json`)).json()) as { pack: { seal: string } };
    expect(body.seal.value).toBe(outline.pack.seal);
    const sample = await (await fetch(`${base}/skills/csv-cleaner/sample.md`)).text();
    const secondStep = /### 2\. /.test(JSON.stringify(body));
    expect(secondStep).toBe(false);
    expect(JSON.stringify(body)).not.toContain(sample.slice(0, 200));
  });

  it('400 SKILL_REQUIRED without a skill, 404 JSON for an unknown one', async () => {
    const missing = await get('/api/packs');
    expect(missing.res.status).toBe(400);
    expect(missing.body.error_code).toBe('SKILL_REQUIRED');
    const unknown = await get('/api/packs?skill=nope');
    expect(unknown.res.status).toBe(404);
    expect(unknown.body.error_code).toBe('not_found');
  });
});

describe('queries made only of stop words', () => {
  // "agent", "skill" and "skills" carry no intent next to other words, but alone they are the query.
  it.each(['agent', 'skills', 'agent skill', 'the'])('"%s" still finds skills on /api/catalog and /api/intent', async (q) => {
    const catalog = await get(`/api/catalog?q=${encodeURIComponent(q)}`);
    expect(catalog.res.status).toBe(200);
    expect(catalog.body.total).toBeGreaterThan(0);
    const intent = await get(`/api/intent?q=${encodeURIComponent(q)}`);
    expect(intent.res.status).toBe(200);
    expect(intent.body.results.length).toBeGreaterThan(0);
  });

  it('still drops stop words when the query has other words', async () => {
    const plain = await get('/api/intent?q=csv%20cleaner');
    const padded = await get('/api/intent?q=an%20agent%20skill%20for%20csv%20cleaner');
    expect(padded.body.results.map((r: any) => r.skill_id)).toEqual(plain.body.results.map((r: any) => r.skill_id));
  });
});

describe('GET /api/intent?q=', () => {
  it('with an empty q (the URL the ESP root advertises) lists the featured skills, canary first, and says how to search', async () => {
    const { res, body } = await get('/api/intent?q=');
    expect(res.status).toBe(200);
    expect(body.query).toBe('');
    expect(body.order).toBe('featured');
    expect(body.results[0].skill_id).toBe('agent-x402-first-buy');
    expect(body.results).toHaveLength(body.count);
    expect(body.count).toBeGreaterThanOrEqual(10);
    expect(body.results[0].pay).toBe(`${base}/api/pay?skill=agent-x402-first-buy`);
    expect(body.tip).toMatch(/q=/);
  });

  it('ranks skills for a plain description, with score and matched fields', async () => {
    const { res, body } = await get(`/api/intent?q=${encodeURIComponent('find which commit broke the build by bisecting git history')}`);
    expect(res.status).toBe(200);
    expect(body.results[0].skill_id).toBe('git-bisect-regression-hunt');
    expect(body.results[0].score).toBeGreaterThan(0);
    expect(Object.keys(body.results[0].matched).length).toBeGreaterThan(0);
    expect(body.results[0].pay).toBe(`${base}/api/pay?skill=git-bisect-regression-hunt`);
  });

  it.each([
    [`q=${'y'.repeat(201)}`, 'q'],
    ['', 'q'],
    ['q=a&list=1', 'q'],
  ])('answers "%s" with a JSON 400', async (qs, param) => {
    const { res, body } = await get(`/api/intent?${qs}`);
    expect(res.status).toBe(400);
    expect(body.details.parameter).toBe(param);
  });
});

describe('intent bounties', () => {
  const post = (body: unknown) =>
    get('/api/intent', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('round-trips through DynamoDB and lists newest first with a cursor', async () => {
    const created: string[] = [];
    for (const n of [1, 2, 3]) {
      const { res, body } = await post({
        title: `Reconcile Stripe payouts ${n}`,
        success_criteria: ['every payout matches a bank line'],
        budget_usd: 2,
      });
      expect(res.status).toBe(200);
      expect(body.intent.id).toMatch(/^int_[0-9a-f]{20}$/);
      expect(body.intent.suggested_skills[0].skill_id).toBe('stripe-payout-reconciliation');
      created.push(body.intent.id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const one = await get(`/api/intent?id=${created[1]}`);
    expect(one.body.intent).toMatchObject({
      id: created[1],
      title: 'Reconcile Stripe payouts 2',
      success_criteria: ['every payout matches a bank line'],
      budget_usd: 2,
      status: 'open',
    });

    const page1 = await get('/api/intent?list=1&limit=2');
    expect(page1.body.intents.map((i: any) => i.id)).toEqual([created[2], created[1]]);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await get(`/api/intent?list=1&limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.intents[0].id).toBe(created[0]);
  });

  it.each([
    [{ success_criteria: ['x works'] }, 'title'],
    [{ title: 'Need help' }, 'success_criteria'],
    [{ title: 'Need help', success_criteria: [] }, 'success_criteria'],
    [{ title: 'Need help', success_criteria: ['ok ok'], extra: 1 }, 'body'],
    [{ title: 'x'.repeat(121), success_criteria: ['ok ok'] }, 'title'],
    [{ title: 'Need help', success_criteria: ['ok ok'], skill_hints: ['not-a-skill'] }, 'skill_hints'],
    [{ title: 'Need help', success_criteria: ['ok ok'], budget_usd: -1 }, 'budget_usd'],
  ])('refuses %j with a JSON 400 naming %s', async (payload, param) => {
    const { res, body } = await post(payload);
    expect(res.status).toBe(400);
    expect(body.error_code).toBe('INVALID_REQUEST');
    expect(body.details.parameter).toBe(param);
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    const { res, body } = await post('{"title":');
    expect(res.status).toBe(400);
    expect(body.error_code).toBe('INVALID_JSON');
  });

  it('404s an unknown id and 400s a forged cursor', async () => {
    expect((await get('/api/intent?id=int_00000000000000000000')).res.status).toBe(404);
    expect((await get('/api/intent?id=../../etc')).res.status).toBe(404);
    const forged = await get(`/api/intent?list=1&cursor=${Buffer.from('{"id":"x"}').toString('base64url')}`);
    expect(forged.res.status).toBe(400);
    expect(forged.body.details.parameter).toBe('cursor');
  });
});
