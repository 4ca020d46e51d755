/**
 * MCP and A2A through clients nobody here wrote: the MCP SDK's Client over Streamable HTTP,
 * the A2A SDK's client, and jose to verify the card's signature. Account 0 (the token
 * minter) pays in this file; no other test file sends from it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createWalletClient, http, type Address } from 'viem';
import { compactVerify, createLocalJWKSet, flattenedVerify, importJWK } from 'jose';
import { canonicalize } from 'json-canonicalize';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_STABLECOIN_ABI, testAccount } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { killStarted, runStart } from '../support/spawn-start';

const base = inject('baseUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const chain = chainTools(inject('rpcUrl'));

let mcp: Client;
beforeAll(async () => {
  mcp = new Client({ name: 'market-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)));
});
afterAll(async () => {
  await mcp?.close();
  killStarted();
});

const toolJson = (r: any) => JSON.parse(r.content[0].text);

describe('MCP', () => {
  it('lists the tools with JSON-schema inputs, over POST and on GET', async () => {
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([
      'check_access',
      'get_esp_cycle',
      'get_outline',
      'get_payment_challenge',
      'get_proof',
      'get_sample',
      'get_skill',
      'list_mandates',
      'search_skills',
      'unlock_skill',
    ]);
    for (const t of tools) expect(t.inputSchema.type).toBe('object');
    const info = (await (await fetch(`${base}/api/mcp`)).json()) as any;
    expect(info.tools.map((t: any) => t.name).sort()).toEqual(names);
    // The annotations a host reads before calling (is it read-only? does it move money?), the same on both.
    for (const t of tools) expect(info.tools.find((i: any) => i.name === t.name).annotations).toEqual(t.annotations);
    expect(tools.find((t) => t.name === 'unlock_skill')?.annotations?.readOnlyHint).toBe(false);
    expect(info.server.name).toBe('skill-market');
  });

  it('searches skills and evaluates one for free', async () => {
    const found = toolJson(
      await mcp.callTool({ name: 'search_skills', arguments: { query: 'find the commit that broke the build with git bisect', limit: 3 } }),
    );
    expect(found[0].skill_id).toBe('git-bisect-regression-hunt');
    const outline = toolJson(await mcp.callTool({ name: 'get_outline', arguments: { skill_id: 'csv-cleaner' } }));
    expect(outline.skill_id).toBe('csv-cleaner');
    const sample = toolJson(await mcp.callTool({ name: 'get_sample', arguments: { skill_id: 'csv-cleaner' } }));
    expect(sample.markdown).toMatch(/^# CSV Cleaner/);
    const cycle = toolJson(await mcp.callTool({ name: 'get_esp_cycle', arguments: { skill_id: 'csv-cleaner' } }));
    expect(cycle.settle).toMatchObject({ amount: '99000', pay_to: TREASURY, network: 'base' });
    expect(cycle.evaluate.pack.seal).toBe(((await (await fetch(`${base}/api/packs?skill=csv-cleaner`)).json()) as any).seal.value);
  });

  it('buys the canary through MCP with a real transfer, and replays it', async () => {
    const challenge = toolJson(await mcp.callTool({ name: 'get_payment_challenge', arguments: { skill_id: 'agent-x402-first-buy' } }));
    expect(challenge.accepts[0]).toMatchObject({ maxAmountRequired: '5000', payTo: TREASURY });
    // Account 0 mints itself the amount (it is the test token's minter) and pays.
    const wallet = createWalletClient({ account: testAccount(0), chain: localChain(inject('rpcUrl')), transport: http(inject('rpcUrl')) });
    await chain.pub.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: USDC,
        abi: TEST_STABLECOIN_ABI,
        functionName: 'mint',
        args: [testAccount(0).address, 1_000_000n],
      }),
    });
    const tx = await chain.transfer(0, USDC, challenge.payTo, BigInt(challenge.maxAmountRequired));

    const unlocked = await mcp.callTool({ name: 'unlock_skill', arguments: { skill_id: 'agent-x402-first-buy', tx_hash: tx } });
    expect(unlocked.isError).toBeFalsy();
    const body = toolJson(unlocked);
    expect(body).toMatchObject({
      ok: true,
      payment: { txHash: tx.toLowerCase(), amount: '5000' },
      revenue_ledger: { recorded: true, replayed: false },
    });
    expect(Object.keys(body.sealed_pack.files)).toContain('SKILL.md');
    // The sale's receipt, as POST /api/pay answers it, signed with the published service key.
    const keys = createLocalJWKSet((await (await fetch(`${base}/.well-known/jwks.json`)).json()) as never);
    const { payload } = await compactVerify(body.receipt, keys, { algorithms: ['ES256'] });
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({
      kind: 'unlock',
      sub: 'agent-x402-first-buy',
      tx: tx.toLowerCase(),
    });

    // The same transfer through HTTP is a replay of the same pack: one claim, whatever the surface.
    const http2 = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: 'agent-x402-first-buy' }) },
    });
    const replay = (await http2.json()) as any;
    expect(replay.revenue_ledger.replayed).toBe(true);
    expect(replay.sealed_pack).toEqual(body.sealed_pack);
    // A license from the MCP unlock re-redeems over HTTP: one key for every surface.
    const redeemed = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': body.license.token } });
    expect(redeemed.status).toBe(200);
    const proof = toolJson(await mcp.callTool({ name: 'get_proof', arguments: { skill_id: 'agent-x402-first-buy', limit: 100 } }));
    expect(proof.recent_unlocks.filter((r: any) => r.txHash === tx.toLowerCase())).toHaveLength(1);
    // The access domain decides over MCP as over HTTP: the buyer owns the skill now.
    const buyer = testAccount(0).address;
    const access = toolJson(await mcp.callTool({ name: 'check_access', arguments: { wallet: buyer, skill_id: 'agent-x402-first-buy' } }));
    expect(access).toMatchObject({ ok: true, granted: true, via: 'one-time', txHash: tx.toLowerCase() });
    const http3 = (await (await fetch(`${base}/api/access?wallet=${buyer}&skill=agent-x402-first-buy`)).json()) as any;
    expect(access).toEqual(http3);
    const mandates = toolJson(await mcp.callTool({ name: 'list_mandates', arguments: { wallet: buyer } }));
    expect(mandates).toEqual((await (await fetch(`${base}/api/mandates?wallet=${buyer}`)).json()) as any);
  });

  it('returns tool errors with the spec error_code', async () => {
    const unknownTx = await mcp.callTool({ name: 'unlock_skill', arguments: { skill_id: 'csv-cleaner', tx_hash: `0x${'12'.repeat(32)}` } });
    expect(unknownTx.isError).toBe(true);
    expect(toolJson(unknownTx)).toMatchObject({ ok: false, error_code: 'PAYMENT_VERIFICATION_FAILED', retry: true });
    const noProof = await mcp.callTool({ name: 'unlock_skill', arguments: { skill_id: 'csv-cleaner' } });
    // Nothing to pay with: x402's MCP transport asks for payment (test/integration/mcp-x402.test.ts).
    expect([noProof.isError, toolJson(noProof).x402Version, toolJson(noProof).error]).toEqual([true, 2, 'payment_required']);
    const unknownSkill = await mcp.callTool({ name: 'get_skill', arguments: { skill_id: 'nope' } });
    expect([unknownSkill.isError, toolJson(unknownSkill).error_code]).toEqual([true, 'not_found']);
  });

  it('reads a skill’s free outline and sample as resources, byte for byte what the site serves', async () => {
    const first = await mcp.listResources();
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toBeTypeOf('string');
    for (const path of ['/skills/csv-cleaner/outline.json', '/skills/csv-cleaner/sample.md']) {
      const { contents } = await mcp.readResource({ uri: `${base}${path}` });
      expect((contents[0] as { text: string }).text).toBe(await (await fetch(`${base}${path}`)).text());
    }
    const packs = await mcp.readResource({ uri: `${base}/api/packs?skill=csv-cleaner` });
    expect(JSON.parse((packs.contents[0] as { text: string }).text)).toEqual(
      await (await fetch(`${base}/api/packs?skill=csv-cleaner`)).json(),
    );
    const { prompts } = await mcp.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['find_and_buy_skill']);
    await expect(mcp.setLoggingLevel('info')).resolves.toEqual({});
  });

  it('answers bad JSON with -32700 and refuses a foreign browser Origin', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const bad = (await (await fetch(`${base}/api/mcp`, { method: 'POST', headers, body: '{"jsonrpc":' })).json()) as any;
    expect(bad.error.code).toBe(-32700);
    const foreign = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { ...headers, origin: 'https://evil.example' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(foreign.status).toBe(403);
  });
});

describe('signed agent card', () => {
  const verify = async (card: any): Promise<boolean> => {
    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: any[] };
    const { signatures, ...unsigned } = card;
    const sig = signatures[0];
    const header = JSON.parse(Buffer.from(sig.protected, 'base64url').toString());
    const key = jwks.keys.find((k) => k.kid === header.kid);
    try {
      await flattenedVerify(
        { protected: sig.protected, signature: sig.signature, payload: Buffer.from(canonicalize(unsigned)).toString('base64url') },
        await importJWK(key, 'ES256'),
      );
      return true;
    } catch {
      return false;
    }
  };

  it('verifies with jose at both paths, and fails with one byte changed', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as any;
    const legacy = (await (await fetch(`${base}/.well-known/agent.json`)).json()) as any;
    expect(legacy).toEqual(card);
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${base}/api/a2a`, capabilities: { streaming: false } });
    expect(card.skills.map((s: any) => s.id)).toEqual([
      'find-skills',
      'evaluate',
      'get-challenge',
      'unlock',
      'buy',
      'check-access',
      'list-mandates',
      'prove',
    ]);
    expect(card.capabilities.extensions).toEqual([
      expect.objectContaining({ uri: 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2', required: false }),
    ]);
    expect(await verify(card)).toBe(true);
    const tampered = { ...card, description: `${card.description.slice(0, -1)}!` };
    expect(await verify(tampered)).toBe(false);
  });
});

describe('A2A', () => {
  it('message/send answers a need with ranked skills; tasks/get reads the task back; a finished task cannot be cancelled', async () => {
    const client = await new ClientFactory().createFromUrl(base);
    const result = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: 'm-1',
        role: 'user',
        parts: [{ kind: 'text', text: 'rotate a leaked AWS access key everywhere it is used' }],
      },
    })) as any;
    expect(result.kind).toBe('task');
    expect(result.status.state).toBe('completed');
    const ranked = result.artifacts[0].parts[0].data;
    expect(ranked.results[0].skill_id).toBe('leaked-credential-rotation');
    expect(ranked.results[0].next.find((n: any) => n.step === 'challenge').url).toBe(`${base}/api/pay?skill=leaked-credential-rotation`);

    const stored = (await client.getTask({ id: result.id })) as any;
    expect(stored.id).toBe(result.id);
    expect(stored.status.state).toBe('completed');
    await expect(client.cancelTask({ id: result.id })).rejects.toThrow();

    const evaluation = (await client.sendMessage({
      message: { kind: 'message', messageId: 'm-2', role: 'user', parts: [{ kind: 'data', data: { skill: 'csv-cleaner' } }] },
    })) as any;
    const data = evaluation.artifacts[0].parts[0].data;
    expect(data.evaluate.challenge_shape.maxAmountRequired).toBe('99000');
    expect(data.sample_markdown).toMatch(/^# CSV Cleaner/);

    const wallet = `0x${'ab'.repeat(20)}`; // a wallet no test uses: nothing changes it between the two reads
    const decided = (await client.sendMessage({
      message: { kind: 'message', messageId: 'm-3', role: 'user', parts: [{ kind: 'data', data: { wallet, skill: 'csv-cleaner' } }] },
    })) as any;
    expect([decided.status.state, decided.artifacts[0].name]).toEqual(['completed', 'access-decision']);
    expect(decided.artifacts[0].parts[0].data).toEqual(
      (await (await fetch(`${base}/api/access?wallet=${wallet}&skill=csv-cleaner`)).json()) as any,
    );
    const listed = (await client.sendMessage({
      message: { kind: 'message', messageId: 'm-4', role: 'user', parts: [{ kind: 'data', data: { wallet } }] },
    })) as any;
    expect([listed.status.state, listed.artifacts[0].name]).toEqual(['completed', 'mandates']);
    expect(listed.artifacts[0].parts[0].data).toEqual((await (await fetch(`${base}/api/mandates?wallet=${wallet}`)).json()) as any);
    const rejected = (await client.sendMessage({
      message: { kind: 'message', messageId: 'm-5', role: 'user', parts: [{ kind: 'data', data: { wallet: '0x123' } }] },
    })) as any;
    expect(rejected.status.state).toBe('rejected');
  });

  it('answers JSON-RPC errors: -32700, -32601, -32602, and -32001 for an unknown task', async () => {
    const rpc = async (body: string) =>
      (await (await fetch(`${base}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as any;
    expect((await rpc('{"jsonrpc":')).error.code).toBe(-32700);
    expect((await rpc('{"jsonrpc":"2.0","id":1,"method":"tasks/fly","params":{}}')).error.code).toBe(-32601);
    expect((await rpc('{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":"nope"}}')).error.code).toBe(-32602);
    expect((await rpc('{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"no-such-task"}}')).error.code).toBe(-32001);
  });

  it('refuses 1000 referenceTaskIds with -32602 naming the field, in well under a second', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const started = performance.now();
    const res = await fetch(`${base}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: 'm-refs', role: 'user', parts: [{ kind: 'text', text: 'csv' }], referenceTaskIds: ids },
        },
      }),
    });
    const body = (await res.json()) as any;
    expect(performance.now() - started).toBeLessThan(500);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/params\.message\.referenceTaskIds/);
  });

  it('answers tasks/get of a 5000-character id with -32001 and no DynamoDB text', async () => {
    const res = await fetch(`${base}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tasks/get', params: { id: 'x'.repeat(5000) } }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text).error.code).toBe(-32001);
    expect(text.length).toBeLessThan(300);
    expect(text).not.toMatch(/ValidationException|hash ?key|2048|dynamo/i);
  });

  it('says on GET /api/a2a that the limit is per caller', async () => {
    const info = (await (await fetch(`${base}/api/a2a`)).json()) as any;
    expect(info.rate_limit).toMatch(/^120 requests per rolling 60 s per caller/);
  });

  it('lets 120 requests through per minute in one instance and answers the 121st with 429 and Retry-After', async () => {
    // A process of its own: one "isolate" whose limiter no other test has touched.
    const s = await runStart({
      EPHEMERAL: '1',
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      RPC_URLS: inject('rpcUrl'),
      USDC_ADDRESS: USDC,
      USDBC_ADDRESS: inject('usdbc'),
      TREASURY_ADDRESS: TREASURY,
    });
    try {
      const send = () =>
        fetch(`${s.baseUrl}/api/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}',
        });
      const statuses: number[] = [];
      for (let i = 0; i < 120; i++) statuses.push((await send()).status);
      expect(statuses.every((x) => x === 200)).toBe(true);
      const limited = await send();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await limited.json()) as any).error.code).toBe(-32029);
    } finally {
      await s.interrupt();
    }
  });
});
