import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Address } from 'viem';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { FINANCE_TRANSACTION_COLUMNS, NET_ROLLUP_COLUMNS } from '../../lambdas/contract/finance-export';
import { EspCycleSchema } from '../../lambdas/contract/esp-cycle-schema';
import { LLMS_MCP_TOOLS } from '../../catalog/llms';
import { chainTools } from '../support/chain';
import { testAccount } from '../../local/anvil';
import { signInWithXHeader } from '../../local/sign-in-with-x';
import { killStarted, runStart } from '../support/spawn-start';

afterAll(() => killStarted());
const base = inject('baseUrl');
const get = async (url: string) => {
  const res = await fetch(url.startsWith('http') ? url : `${base}${url}`);
  const type = res.headers.get('content-type') ?? '';
  return { res, type, body: type.includes('json') ? ((await res.json()) as any) : await res.text() };
};
/** Templates in advertised URLs, filled with real values. */
const fill = (url: string, intentId: string) =>
  url
    .replace('<SKILL_ID>', 'csv-cleaner')
    .replace('<intent_id>', intentId)
    .replace(/ \(.*\)$/, '');

describe('GET /api/esp (root)', () => {
  it('has every field of the spec table with the spec values', async () => {
    const { res, body } = await get('/api/esp');
    expect(res.status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      [
        'ok',
        'schema',
        'protocol',
        'protocol_version',
        'name',
        'site',
        'philosophy',
        'invariants',
        'phases',
        'money_safety',
        'confirmed_activity',
        'canary',
        'discovery',
        'p1',
        'roadmap',
        'agent_purchase_sequence',
      ].sort(),
    );
    expect(body).toMatchObject({ ok: true, schema: 'market-esp-protocol-v1', protocol: 'ESP', protocol_version: '1.0.0', site: base });
    expect(body.philosophy).toEqual({
      free_evaluation_sacred: true,
      settlement_atomic_one_time: true,
      proof_public_only_success_signal: true,
      never_invent_metrics: true,
      evaluators_are_esp_skills: true,
    });
    expect(body.invariants).toEqual({
      free_eval_always: true,
      settlement_atomic: true,
      proof_public_only: true,
      no_invented_metrics: true,
      source_of_truth: `${base}/api/proof`,
    });
    expect(body.phases.evaluate.cost).toBe('free');
    expect(body.phases.prove).toMatchObject({ cost: 'free', source_of_truth: `${base}/api/proof` });
    expect(body.phases.settle.cost).toMatch(/USDC on Base/);
    expect(body.phases.evaluate.endpoints).toEqual([
      `${base}/api/esp?skill=<SKILL_ID>&phase=evaluate`,
      `${base}/skills/<SKILL_ID>/outline.json`,
      `${base}/skills/<SKILL_ID>/sample.md`,
      `${base}/api/packs?skill=<SKILL_ID>`,
    ]);
    expect(body.money_safety).toMatchObject({
      network: 'base',
      network_caip2: 'eip155:8453',
      asset: 'USDC',
      asset_contract: inject('usdc'),
      pay_to: inject('treasury').toLowerCase(),
      pay_to_canonical: inject('treasury'),
    });
    expect(Object.keys(body.confirmed_activity).sort()).toEqual(
      ['confirmed_unlocks', 'honesty', 'last_tx', 'last_verified', 'quality_score', 'source', 'unique_skills', 'volume_usd'].sort(),
    );
    expect(body.confirmed_activity.quality_score).toBeNull();
    expect(body.canary).toMatchObject({
      skill_id: 'agent-x402-first-buy',
      price_usd: 0.005,
      cycle: `${base}/api/esp?skill=agent-x402-first-buy`,
    });
    expect(Object.keys(body.discovery).sort()).toEqual([
      'agent_card',
      'bundles',
      'catalog',
      'esp_discovery',
      'esp_schema',
      'eval',
      'intent',
      'intent_list',
      'intent_post',
      'judges',
      'llms',
      'mcp',
      'openapi',
      'ready',
      'revenue',
      'security',
      'security_sarif',
      'shop',
      'signals',
      'trust',
    ]);
    expect(body.p1).toMatchObject({
      recursive_evaluators: `${base}/api/judges`,
      seed_judges: ['esp-outcome-judge', 'esp-claim-verifier', 'esp-delivery-critic'],
    });
    expect(Object.keys(body.p1.intent_bounty).sort()).toEqual(['get', 'list', 'post', 'required_fields']);
    expect(body.roadmap).toEqual({
      p0: 'core ESP cycle and readiness',
      p1: 'recursive evaluator market and intent/bounty surface, live',
      p2: 'sealed capability graphs and memory as sealed packs',
    });
    expect(body.agent_purchase_sequence).toHaveLength(6);
  });

  it('every advertised URL resolves (never 404) with a JSON or the right static content type', async () => {
    const { body } = await get('/api/esp');
    const urls = [
      ...Object.values(body.discovery),
      ...Object.values(body.phases).flatMap((p: any) => p.endpoints),
      body.canary.cycle,
      body.p1.recursive_evaluators,
      ...Object.values(body.p1.intent_bounty).filter((v) => typeof v === 'string' && v.startsWith('http')),
    ] as string[];
    expect(urls.length).toBeGreaterThan(15);
    const posted = await fetch(`${base}/api/intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Walk the ESP links', success_criteria: ['every link answers'] }),
    });
    const intentId = ((await posted.json()) as any).intent.id as string;
    for (const raw of urls) {
      const url = fill(raw, intentId);
      const { res, type } = await get(url);
      expect(res.status, url).not.toBe(404);
      if (url.endsWith('.md')) expect(type, url).toMatch(/text\/markdown/);
      else if (url.endsWith('llms.txt')) expect(type, url).toMatch(/text\/plain/);
      else expect(type, url).toMatch(/application\/json/);
    }
  });
});

describe('advertised URLs', () => {
  it('every GET URL the ESP root advertises answers its normal status: 200, or 402 for a challenge', async () => {
    const { body } = await get('/api/esp');
    const posted = await fetch(`${base}/api/intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Walk the ESP links', success_criteria: ['every link answers'] }),
    });
    const intentId = ((await posted.json()) as any).intent.id as string;
    // POST-only entries are marked: discovery.intent_post, p1.intent_bounty.post, and "(POST …)" in the phases.
    const { intent_post: _post, ...gets } = body.discovery;
    const urls = [
      ...Object.values(gets),
      ...Object.values(body.phases).flatMap((p: any) => p.endpoints),
      body.canary.cycle,
      body.p1.recursive_evaluators,
      body.p1.intent_bounty.list,
      body.p1.intent_bounty.get,
    ] as string[];
    for (const raw of urls.filter((u) => !/\(POST/.test(u))) {
      const url = fill(raw, intentId);
      const { res } = await get(url);
      expect(res.status, url).toBe(/\/api\/pay\?skill=/.test(url) ? 402 : 200);
    }
  });
});

describe('GET /api/esp?skill=', () => {
  it('gives the full cycle, conforming to the published cycle schema, and slices by phase', async () => {
    const cycle = (await get('/api/esp?skill=csv-cleaner')).body;
    expect(EspCycleSchema.safeParse(cycle).success).toBe(true);
    const published = (await get('/esp/cycle.schema.json')).body;
    expect(published.$id).toBe('/esp/cycle.schema.json');
    expect(cycle.evaluate.pack.seal).toBe((await get('/api/packs?skill=csv-cleaner')).body.seal.value);
    for (const phase of ['evaluate', 'settle', 'prove'] as const) {
      const slice = (await get(`/api/esp?skill=csv-cleaner&phase=${phase}`)).body;
      expect(slice.phase).toBe(phase);
      expect(slice[phase]).toEqual(cycle[phase]);
      expect(Object.keys(slice)).not.toContain(phase === 'evaluate' ? 'settle' : 'evaluate');
    }
    expect((await get('/api/esp?skill=csv-cleaner&phase=cycle')).body).toEqual(cycle);
  });

  it("answers a transaction's ledger row, or says it is not recorded", async () => {
    const unknown = (await get(`/api/esp?skill=csv-cleaner&phase=prove&tx=0x${'ab'.repeat(32)}`)).body;
    expect(unknown).toMatchObject({ recorded: false, row: null });
    expect(unknown.message).toMatch(/Not recorded/);
    const proof = (await get('/api/proof?limit=1')).body;
    if (proof.recent_unlocks.length > 0) {
      const row = proof.recent_unlocks[0];
      const recorded = (await get(`/api/esp?skill=${row.skill}&phase=prove&tx=${row.txHash}`)).body;
      expect(recorded).toMatchObject({ recorded: true, row: { txHash: row.txHash } });
    }
  });

  it.each([
    ['/api/esp?phase=evaluate', 400, 'SKILL_REQUIRED'],
    ['/api/esp?skill=csv-cleaner&phase=nope', 400, 'INVALID_REQUEST'],
    ['/api/esp?skill=csv-cleaner&tx=0x12', 400, 'INVALID_REQUEST'],
    ['/api/esp?skill=nope', 404, 'not_found'],
  ])('%s → %i %s', async (url, status, code) => {
    const { res, body } = await get(url);
    expect(res.status).toBe(status);
    expect(body.error_code).toBe(code);
  });
});

describe('OpenAPI and x402 discovery', () => {
  it("is a valid OpenAPI 3.1.0 document with the spec's own version, 1.6.0, generated from the route table", async () => {
    const doc = (await get('/api/openapi.json')).body;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.6.0');
    const { ROUTES } = await import('../../lambdas/contract/routes');
    for (const r of ROUTES) expect(doc.paths[r.path]?.[r.method.toLowerCase()]?.operationId, `${r.method} ${r.path}`).toBe(r.operationId);
  });

  it('documents the bounds of anonymous writes: intent expiry and limits, and signals without bounties (issue 31)', async () => {
    const doc = (await get('/api/openapi.json')).body;
    const post = doc.paths['/api/intent'].post;
    expect(post.responses['200'].description).toMatch(/expires_at \(created_at \+ 30 days/);
    expect(post.responses['429'].description).toMatch(
      /^Over 20 requests per 60 s from this address, or at most 50 bounties per caller .* per UTC day/,
    );
    expect(doc.paths['/api/signals'].get.responses['200'].description).toMatch(/Intent bounties are not included/);
    expect(doc.paths['/api/mandates'].post.responses['429'].description).toMatch(/^Over 30 requests per 60 s/);
    // The challenge is never limited; GET carrying a payment or a sign-in spends the unlock budget (issue 50, I7).
    expect(doc.paths['/api/pay'].get.responses['429'].description).toMatch(
      /^Over 300 requests per 60 s from this address \(counting only requests that carry payment-signature, x-payment, sign-in-with-x\)/,
    );
  });

  it('says which checkout calls need the session’s client secret (a bearer scheme), and what creation answers', async () => {
    const doc = (await get('/api/openapi.json')).body;
    expect(doc.components.securitySchemes.checkoutSessionSecret).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, method] of [
      ['/api/acp/checkout_sessions/{id}', 'get'],
      ['/api/acp/checkout_sessions/{id}/cancel', 'post'],
      ['/api/ucp/checkout-sessions/{id}', 'put'],
      ['/api/ucp/checkout-sessions/{id}/complete', 'post'],
    ] as const) {
      expect(doc.paths[path][method].security, `${method} ${path}`).toEqual([{ checkoutSessionSecret: [] }]);
      expect(doc.paths[path][method].responses['401'], `${method} ${path}`).toBeDefined();
    }
    // The delivery takes the secret or the license, or (once) neither.
    expect(doc.paths['/api/checkout/delivery'].get.security).toEqual([{ checkoutSessionSecret: [] }, {}]);
    expect(doc.paths['/api/checkout/delivery'].get.parameters.map((p: any) => p.name)).toContain('X-LICENSE');
    expect(Object.keys(doc.paths['/api/checkout/delivery'].get.responses)).toEqual(expect.arrayContaining(['401', '403']));
    expect(doc.paths['/api/acp/checkout_sessions'].post.security).toBeUndefined();
    expect(doc.paths['/api/acp/checkout_sessions'].post.responses['201'].description).toMatch(/client_secret/);
  });

  it('tags every operation with the domain that serves it, from the route table', async () => {
    const { ROUTES } = await import('../../lambdas/contract/routes');
    const doc = (await get('/api/openapi.json')).body;
    for (const r of ROUTES) expect(doc.paths[r.path][r.method.toLowerCase()].tags, r.operationId).toEqual([r.domain]);
    expect(doc.paths['/api/ready'].get.tags).toEqual(['payments']);
  });

  it('every GET path resolves (never 404) with the right content type', async () => {
    const doc = (await get('/api/openapi.json')).body;
    // A checkout session's path needs a session that exists.
    const open = async (path: string, body: unknown): Promise<string> =>
      ((await (await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as { id: string }).id;
    const ids: Record<string, string> = {
      acp: await open('/api/acp/checkout_sessions', { line_items: [{ id: 'csv-cleaner', quantity: 1 }] }),
      ucp: await open('/api/ucp/checkout-sessions', { line_items: [{ item: { id: 'csv-cleaner' }, quantity: 1 }] }),
    };
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      if (!ops.get) continue;
      const required = (ops.get.parameters ?? [])
        .filter((p: any) => p.required && p.in === 'query')
        .map((p: any) => `${p.name}=csv-cleaner`);
      const protocol = /\/api\/(acp|ucp)\//.exec(path)?.[1];
      const url = path.replace('{id}', protocol ? ids[protocol]! : 'csv-cleaner') + (required.length ? `?${required.join('&')}` : '');
      const { res, type } = await get(url);
      expect(res.status, url).not.toBe(404);
      const declared = Object.keys(Object.values<any>(ops.get.responses)[0].content ?? { 'application/json': {} })[0]!;
      expect(type, url).toContain(declared.split(';')[0]);
    }
  });

  it('lists exactly the ten x402 resources in OpenAPI, the first ten of /.well-known/x402', async () => {
    const doc = (await get('/api/openapi.json')).body;
    const resources = doc['x-x402-resources'] as any[];
    expect(resources).toHaveLength(10);
    for (const r of resources) {
      expect(r).toMatchObject({
        method: 'GET',
        scheme: 'exact',
        network: 'eip155:8453',
        asset: inject('usdc'),
        resource: `${base}/api/pay?skill=${r.skill_id}`,
      });
      expect([r.amount, r.price_usd, r.regular_price_usd]).toEqual(
        r.skill_id === 'agent-x402-first-buy' ? ['5000', 0.005, 0.05] : ['99000', 0.099, 0.99],
      );
      // The challenge agrees with the list.
      expect((await get(`/api/pay?skill=${r.skill_id}`)).body.maxAmountRequired).toBe(r.amount);
    }
    const discovery = (await get('/.well-known/x402')).body;
    expect(discovery).toMatchObject({ x402Version: 2, pagination: { limit: 100, offset: 0, total: 250 } });
    expect(discovery.items).toHaveLength(100);
    // The spec's ten come first, each item the spec's resource entry as OpenAPI lists it.
    const fields = Object.keys(resources[0]);
    expect(discovery.items.slice(0, 10).map((i: any) => Object.fromEntries(fields.map((f) => [f, i[f]])))).toEqual(resources);
    expect(discovery.items.slice(0, 10).map((i: any) => i.accepts[0].amount)).toEqual(resources.map((r) => r.amount));
    // Each item offers exactly what the resource's PAYMENT-REQUIRED offers, and names both flows.
    const first = discovery.items[0];
    expect(first).toMatchObject({ type: 'http', x402Version: 2, mimeType: 'application/json' });
    const res = await fetch(first.resource);
    const required = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8'));
    // The escrow's deadlines are those of the minute each answer was made in: equal, or a minute apart across a minute's end.
    const terms = (accepts: any[]) =>
      accepts.map(({ extra, ...r }) => ({ ...r, extra: { ...extra, captureDeadline: 0, refundDeadline: 0 } }));
    expect(terms(first.accepts)).toEqual(terms(required.accepts));
    const escrowOf = (accepts: any[]) => accepts.find((a) => a.scheme === 'auth-capture').extra;
    expect([0, 60]).toContain(escrowOf(required.accepts).captureDeadline - escrowOf(first.accepts).captureDeadline);
    expect(escrowOf(first.accepts).refundDeadline - escrowOf(first.accepts).captureDeadline).toBe(30 * 86_400);
    expect(Object.keys(first.metadata.flows)).toEqual(['x402_v2', 'x402_escrow', 'transfer']);
    // OpenAPI says the same of GET /api/pay: both headers of the 402, PAYMENT-SIGNATURE in, PAYMENT-RESPONSE out.
    const pay = doc.paths['/api/pay'].get;
    expect(Object.keys(pay.responses['402'].headers)).toEqual(['PAYMENT-REQUIRED', 'X-PAYMENT-REQUIRED']);
    expect(pay.parameters.map((p: any) => p.name)).toContain('PAYMENT-SIGNATURE');
    expect(Object.keys(pay.responses['200'].headers)).toContain('PAYMENT-RESPONSE');
  });

  it('/.well-known/x402 pages through every skill of the catalog once, each at its catalog price', async () => {
    const catalog = (await get('/catalog.json')).body;
    const byId = new Map<string, any>(catalog.skills.map((s: any) => [s.id, s]));
    const seen: string[] = [];
    for (let offset = 0; ; offset += 37) {
      const page = (await get(`/.well-known/x402?limit=37&offset=${offset}`)).body;
      expect(page.pagination).toEqual({ limit: 37, offset, total: 250 });
      if (page.items.length === 0) break;
      for (const item of page.items) {
        const skill = byId.get(item.skill_id);
        expect(skill, item.skill_id).toBeDefined();
        expect(item).toMatchObject({
          name: skill.name,
          resource: `${base}/api/pay?skill=${skill.id}`,
          method: 'GET',
          scheme: 'exact',
          network: 'eip155:8453',
          asset: inject('usdc'),
          amount: skill.x402.amount,
          price_usd: skill.price_usd,
          regular_price_usd: skill.regular_price_usd,
        });
        // exact in USDC and USDbC, then auth-capture in USDC: each at the catalog price.
        expect(item.accepts.map((a: any) => [a.scheme, a.amount])).toEqual([
          ['exact', skill.x402.amount],
          ['exact', skill.x402.amount],
          ['auth-capture', skill.x402.amount],
        ]);
      }
      seen.push(...page.items.map((i: any) => i.skill_id));
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen)).toEqual(new Set(byId.keys()));
    // A page past the end is empty, not an error; a bad limit is the spec's 400.
    expect((await get('/.well-known/x402?offset=250')).body.items).toEqual([]);
    const bad = await get('/.well-known/x402?limit=0');
    expect(bad.res.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST' });
  });

  it('llms.txt states the same prices and paths as the API', async () => {
    const text = (await get('/llms.txt')).body as string;
    const resources = (await get('/api/openapi.json')).body['x-x402-resources'] as any[];
    for (const r of resources) expect(text).toContain(`(amount ${r.amount}`);
    expect(text).toContain('/api/pay?skill=agent-x402-first-buy');
  });

  it('every path llms.txt names answers (never 404, never HTML under /api), and every MCP tool it names is served', async () => {
    const text = (await get('/llms.txt')).body as string;
    const paths = new Set(
      [...text.matchAll(/(?<![\w.])(\/(?:api|skills|\.well-known|catalog\.json|llms\.txt|recover|purchases)[^\s)`'",;]*)/g)].map((m) =>
        m[1]!
          .replace(/<id>/g, 'csv-cleaner')
          .replace(/[=&?]<[^>]+>/g, (p) => p[0]! + 'x')
          .replace(/[.:]$/, ''),
      ),
    );
    expect(paths.size).toBeGreaterThan(20);
    for (const path of paths) {
      const { res, type } = await get(path);
      expect(res.status, path).not.toBe(404);
      if (path.startsWith('/api/')) expect(type, path).toMatch(/json/);
    }
    const listed = ((await get('/api/mcp')).body.tools as { name: string }[]).map((t) => t.name);
    for (const tool of LLMS_MCP_TOOLS) expect(listed, tool).toContain(tool);
  });
});

describe('honesty', () => {
  // Its own stack, purchases, and three operator tools run as processes (reconcile, export, revenue): more than the default 30 s on a busy machine.
  it('a fresh instance reports zeros and nulls; after real unlocks the figures equal /api/proof', async () => {
    const s = await runStart({ EPHEMERAL: '1' });
    try {
      const g = async (p: string) => (await (await fetch(`${s.baseUrl}${p}`)).json()) as any;
      const fresh = (await g('/api/esp')).confirmed_activity;
      expect(fresh).toMatchObject({
        confirmed_unlocks: 0,
        volume_usd: 0,
        unique_skills: 0,
        last_verified: null,
        last_tx: null,
        quality_score: null,
      });
      expect((await g('/api/judges')).judges.every((j: any) => j.quality === null)).toBe(true);
      expect((await g('/api/shop')).shelves.most_unlocked).toEqual([]);
      const freshRevenue = await g('/api/revenue');
      expect(freshRevenue.totals).toMatchObject({ count: 0, amount_usd: '0', by_channel: [], lines: [] });
      expect(freshRevenue.by_day).toEqual([]);
      expect((await g('/api/signals')).demand).toEqual([]);
      const freshTrust = (await g('/api/trust')).scorecards;
      expect(freshTrust).toHaveLength(250);
      expect(freshTrust.every((c: any) => c.confirmed_unlocks === 0 && c.reorged_claims === 0 && c.card_sales === 0)).toBe(true);

      const rpc = /RPC\s+(http:\/\/\S+)/.exec(s.output())![1]!;
      const chain = chainTools(rpc);
      const usdc = (await g('/api/pay?skill=csv-cleaner')).assetContract as Address;
      const treasury = (await g('/api/pay?skill=csv-cleaner')).payTo as Address;
      for (const [skill, amount] of [
        ['agent-x402-first-buy', 5000n],
        ['esp-outcome-judge', 99000n],
        ['esp-outcome-judge', 120000n],
      ] as const) {
        const tx = await chain.transfer(1, usdc, treasury, amount);
        // More than the price is a pack only with the paying wallet's signature (issue 50, I5).
        const price = BigInt((await g(`/api/pay?skill=${skill}`)).amount);
        const signed =
          amount === price
            ? {}
            : { 'sign-in-with-x': await signInWithXHeader({ account: testAccount(1), baseUrl: s.baseUrl, skill, txHash: tx }) };
        const r = await fetch(`${s.baseUrl}/api/pay`, {
          method: 'POST',
          headers: { 'x-payment': JSON.stringify({ txHash: tx, skill }), ...signed },
        });
        expect(r.status, await r.clone().text()).toBe(200);
      }
      // The figures are folded from the ledger's stream: they follow the purchases within moments.
      await vi.waitFor(async () => expect((await g('/api/proof?limit=100')).confirmed).toBe(3), { timeout: 10_000, interval: 100 });
      const proof = await g('/api/proof?limit=100');
      const activity = (await g('/api/esp')).confirmed_activity;
      expect(activity.confirmed_unlocks).toBe(proof.confirmed);
      expect(activity.confirmed_unlocks).toBe(3);
      expect(activity.volume_usd).toBeCloseTo(
        proof.recent_unlocks.reduce((t: number, r: any) => t + r.amount_usd, 0),
        9,
      );
      expect(activity.unique_skills).toBe(new Set(proof.recent_unlocks.map((r: any) => r.skill)).size);
      expect(activity.last_tx).toBe(proof.recent_unlocks[0].txHash);
      expect(activity.quality_score).toBeNull();
      const judge = (await g('/api/judges')).judges.find((j: any) => j.skill_id === 'esp-outcome-judge');
      expect(judge.quality).toMatchObject({ confirmed_unlocks: 2 });
      expect((await g('/api/shop')).shelves.most_unlocked[0]).toMatchObject({ skill_id: 'esp-outcome-judge', confirmed_unlocks: 2 });

      // 40 racing POSTs of one transfer: one row, counted once.
      const raced = await chain.transfer(1, usdc, treasury, 99000n);
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(`${s.baseUrl}/api/pay`, {
            method: 'POST',
            headers: { 'x-payment': JSON.stringify({ txHash: raced, skill: 'csv-cleaner' }) },
          }),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
      expect((await g('/api/esp')).confirmed_activity.confirmed_unlocks).toBe(4);
      expect((await g('/api/proof?skill=csv-cleaner')).confirmed).toBe(1);

      // The proof ledger a page at a time: every row once, newest first, then next_cursor null.
      const seen: string[] = [];
      let page = await g('/api/proof?limit=3');
      expect(page).toMatchObject({ confirmed: 4, limit: 3 });
      for (;;) {
        seen.push(...page.recent_unlocks.map((r: any) => r.txHash));
        if (page.next_cursor === null) break;
        page = await g(`/api/proof?limit=3&cursor=${encodeURIComponent(page.next_cursor)}`);
      }
      expect(seen).toHaveLength(4);
      expect(new Set(seen).size).toBe(4);
      expect(seen[0]).toBe(raced);
      const foreign = await fetch(`${s.baseUrl}/api/proof?cursor=${Buffer.from('not a cursor').toString('base64url')}`);
      expect(foreign.status).toBe(400);
      expect(await foreign.json()).toMatchObject({ ok: false, error_code: 'INVALID_REQUEST', details: { parameter: 'cursor' } });

      // Revenue and signals are the same facts: 4 unlocks, 5000 + 99000 + 120000 + 99000 atomic USDC, all today.
      const revenue = await g('/api/revenue');
      expect(revenue.totals).toMatchObject({
        count: 4,
        amount_usd: '0.323',
        by_asset: [{ asset: 'USDC', count: 4, amount_atomic: '323000', decimals: 6, amount_usd: '0.323' }],
      });
      expect(revenue.window.count).toBe(4);
      const csv = await (await fetch(`${s.baseUrl}/api/revenue?format=csv`)).text();
      const lines = csv.trim().split('\r\n');
      expect(lines[0]).toBe('day,channel,asset,product,count,amount_atomic,decimals,amount_usd');
      expect(lines.slice(1).map((l) => l.split(',').slice(1, 6).join(','))).toEqual([
        'x402,USDC,agent-x402-first-buy,1,5000',
        'x402,USDC,csv-cleaner,1,99000',
        'x402,USDC,esp-outcome-judge,2,219000',
      ]);
      const demand = (await g('/api/signals')).demand;
      expect(demand[0]).toMatchObject({ channel: 'x402', product: 'esp-outcome-judge', confirmed: { '7d': 2, '30d': 2, all: 2 } });
      expect((await g('/api/trust?skill=esp-outcome-judge')).scorecard).toMatchObject({ confirmed_unlocks: 2, reorged_claims: 0 });

      // The operator's reconcile against this instance's DynamoDB Local: every tally equals a recount.
      const dynamo = /DynamoDB\s+(http:\/\/\S+)/.exec(s.output())![1]!;
      const reconcile = await new Promise<{ code: number | null; out: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', 'local/reconcile.ts'],
          { cwd: fileURLToPath(new URL('../..', import.meta.url)), env: { ...process.env, DYNAMODB_ENDPOINT: dynamo } },
          (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout }),
        );
      });
      expect(reconcile.code, reconcile.out).toBe(0);
      expect(JSON.parse(reconcile.out)).toMatchObject({ state: 'equal', ledger_rows: 4, card_sales: 0, difference_count: 0 });

      // Finance's path: npm run export, then npm run revenue over it, gives the CSV /api/revenue serves.
      const exportDir = mkdtempSync(join(tmpdir(), 'skill-market-export-'));
      try {
        const tool = (script: string, args: string[]) =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
            execFile(
              process.execPath,
              ['--import', 'tsx', script, ...args],
              { cwd: fileURLToPath(new URL('../..', import.meta.url)), env: { ...process.env, DYNAMODB_ENDPOINT: dynamo } },
              (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
            );
          });
        const exported = await tool('local/export.ts', [exportDir]);
        expect(exported.code, exported.err).toBe(0);
        const rollup = await tool('local/revenue.ts', [exportDir]);
        expect(rollup.code, rollup.err).toBe(0);
        const today = new Date().toISOString().slice(0, 10);
        const served = await (await fetch(`${s.baseUrl}/api/revenue?format=csv&to=${today}`)).text();
        expect(rollup.out).toBe(served);
        expect(rollup.out.trim().split('\r\n')).toHaveLength(4);
        // The books and the net rollup from the same export: four sales, and the net rollup's gross their sum.
        const books = await tool('local/revenue.ts', [exportDir, '--transactions']);
        expect(books.code, books.err).toBe(0);
        const [header, ...rows] = books.out.trim().split('\r\n');
        expect(header).toBe(FINANCE_TRANSACTION_COLUMNS.join(','));
        expect(rows.filter((r) => r.split(',')[2] === 'sale')).toHaveLength(4);
        const net = await tool('local/revenue.ts', [exportDir, '--net']);
        expect(net.code, net.err).toBe(0);
        expect(net.out.split('\r\n')[0]).toBe(NET_ROLLUP_COLUMNS.join(','));
        expect(
          net.out
            .trim()
            .split('\r\n')
            .slice(1)
            .reduce((n, r) => n + Number(r.split(',')[2]), 0),
        ).toBe(4);
        expect((await tool('local/revenue.ts', [exportDir, '--gross-margin'])).code).toBe(2);
      } finally {
        rmSync(exportDir, { recursive: true, force: true });
      }
    } finally {
      await s.interrupt();
    }
  }, 180_000);
});
