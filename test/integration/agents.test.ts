/**
 * MCP through a client nobody here wrote: the MCP SDK's Client over Streamable HTTP (A2A is in
 * a2a.test.ts). Account 0 (the token
 * minter) pays in this file; no other test file sends from it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createWalletClient, http, type Address } from 'viem';
import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_STABLECOIN_ABI, testAccount } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { killStarted } from '../support/spawn-start';

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
