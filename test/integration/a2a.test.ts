/**
 * A2A through clients nobody here wrote: the stock `@a2a-js/sdk` 1.x client with its default
 * settings (no v0.3 compatibility switched on) and the stock 0.3 client (`a2a-sdk-v03`, the SDK's
 * 0.3.14), both against the one endpoint; the card's signatures checked with the SDK's verifier
 * and with jose. The buyers are fresh random accounts funded by writing the token balance; they
 * sign x402 payments with `@x402/core`'s client and never send a transaction themselves.
 */
import { canonicalizeAgentCard, SendMessageRequest, TaskState, verifyAgentCardSignature, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, erc20Abi, http, type Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { compactVerify, createLocalJWKSet, flattenedVerify, importJWK, type JWK } from 'jose';
import { canonicalize } from 'json-canonicalize';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { runReadmeSnippet } from '../support/readme-snippets';
import { requestFrom } from '../support/source-address';
import { killStarted, runStart } from '../support/spawn-start';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const chain = chainTools(rpcUrl);
const pub = createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl) });

/** A 0.099 USDC skill no other file buys with USDC on this stack (checkout.test only opens a card session for it). */
const SKILL = 'market-x402-merchant-os';
const PRICE = 99000n;
/** A $1.99 skill no other test file buys: above @x402/core's default spend cap ($1). */
const DEAR_SKILL = 'author-revenue-share-payouts';
const DEAR_PRICE = 1990000n;
const X402_EXTENSION = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';

afterAll(() => killStarted());

const jwks = async () => (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: (JWK & { kid: string })[] };
const balance = (who: Address) => pub.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const proofRows = async (tx: string) =>
  ((await (await fetch(`${base}/api/proof?skill=${SKILL}&limit=100`)).json()) as any).recent_unlocks.filter(
    (r: any) => r.txHash === tx.toLowerCase(),
  );

/** A fresh random buyer holding 1000 test USDC, and no ETH. */
const freshBuyer = (): Promise<PrivateKeyAccount> => chain.freshWallet(USDC, 10n ** 9n);

/** x402's stock client with the exact EVM scheme, as a wallet would sign the task's payment requirements. */
function signer(account: PrivateKeyAccount) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  return client;
}

/** A 1.0 SendMessage request from its wire JSON (what the client's transport sends back out). */
const send = (message: Record<string, unknown>): SendMessageRequest =>
  SendMessageRequest.fromJSON({ message: { role: 'ROLE_USER', messageId: crypto.randomUUID(), ...message } });
const asTask = (result: Message | Task): Task => {
  expect('status' in result, JSON.stringify(result)).toBe(true);
  return result as Task;
};
const dataOf = (task: Task, name: string): any => {
  const part = task.artifacts.find((a) => a.name === name)?.parts[0]?.content;
  return part?.$case === 'data' ? part.value : undefined;
};

describe('signed agent card', () => {
  it('is A2A 1.0 to a 1.0 client at both paths, listing JSON-RPC for 1.0 and 0.3, and verifies with the SDK against the JWKS', async () => {
    const read = (path: string) => fetch(`${base}${path}`, { headers: { 'A2A-Version': '1.0' } });
    const res = await read('/.well-known/agent-card.json');
    expect(res.headers.get('vary')).toMatch(/A2A-Version/i);
    const card = (await res.json()) as any;
    expect(await (await read('/.well-known/agent.json')).json()).toEqual(card);
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/api/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/api/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card).not.toHaveProperty('url');
    expect(card).not.toHaveProperty('protocolVersion');
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false });
    expect(card.capabilities.extensions).toEqual([expect.objectContaining({ uri: X402_EXTENSION, required: false })]);
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

    const { keys } = await jwks();
    const verify = verifyAgentCardSignature(async (kid) => keys.find((k) => k.kid === kid)!);
    await expect(verify(card)).resolves.toBeUndefined();
    await expect(verify({ ...card, description: `${card.description.slice(0, -1)}!` })).rejects.toThrow();
    // The header names the key and where it is published.
    const header = JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString());
    expect(header).toMatchObject({ alg: 'ES256', kid: keys[0]!.kid, jku: `${base}/.well-known/jwks.json` });
    expect(canonicalizeAgentCard(card)).not.toMatch(/signatures/);
  });

  it('is the v0.3 card to a request naming no version, signed as v0.3 signed it, with the 1.0 interfaces embedded', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as any;
    expect(await (await fetch(`${base}/.well-known/agent.json`)).json()).toEqual(card);
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${base}/api/a2a`, preferredTransport: 'JSONRPC' });
    expect(card.supportedInterfaces).toHaveLength(2);
    const { signatures, ...unsigned } = card;
    const verify = async (body: unknown) => {
      const sig = signatures[0];
      const kid = JSON.parse(Buffer.from(sig.protected, 'base64url').toString()).kid;
      const key = (await jwks()).keys.find((k) => k.kid === kid)!;
      const payload = Buffer.from(canonicalize(body)).toString('base64url');
      return flattenedVerify({ protected: sig.protected, signature: sig.signature, payload }, await importJWK(key, 'ES256')).then(
        () => true,
        () => false,
      );
    };
    expect(await verify(unsigned)).toBe(true);
    expect(await verify({ ...unsigned, url: 'https://elsewhere.example/api/a2a' })).toBe(false);
  });
});

describe('A2A 1.0 with the stock 1.x client (default settings)', () => {
  it('searches with a text part, reads the task back, cannot cancel a finished one, evaluates a skill and answers access questions', async () => {
    const client = await new ClientFactory().createFromUrl(base);
    expect(client.protocolVersion).toBe('1.0');
    const found = asTask(await client.sendMessage(send({ parts: [{ text: 'rotate a leaked AWS access key everywhere it is used' }] })));
    expect(found.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const ranked = dataOf(found, 'ranked-skills');
    expect(ranked.results[0].skill_id).toBe('leaked-credential-rotation');
    expect(ranked.results[0].next.find((n: any) => n.step === 'challenge').url).toBe(`${base}/api/pay?skill=leaked-credential-rotation`);

    const stored = await client.getTask({ tenant: '', id: found.id });
    expect([stored.id, stored.status?.state]).toEqual([found.id, TaskState.TASK_STATE_COMPLETED]);
    await expect(client.cancelTask({ tenant: '', id: found.id, metadata: undefined })).rejects.toThrow();

    const evaluated = asTask(await client.sendMessage(send({ parts: [{ data: { skill: 'csv-cleaner' } }] })));
    const evaluation = dataOf(evaluated, 'evaluation');
    expect(evaluation.evaluate.challenge_shape.maxAmountRequired).toBe('99000');
    expect(evaluation.sample_markdown).toMatch(/^# CSV Cleaner/);

    const wallet = `0x${'ab'.repeat(20)}`; // a wallet no test uses: nothing changes it between the two reads
    const decided = asTask(await client.sendMessage(send({ parts: [{ data: { wallet, skill: 'csv-cleaner' } }] })));
    expect(dataOf(decided, 'access-decision')).toEqual(await (await fetch(`${base}/api/access?wallet=${wallet}&skill=csv-cleaner`)).json());
    const listed = asTask(await client.sendMessage(send({ parts: [{ data: { wallet } }] })));
    expect(dataOf(listed, 'mandates')).toEqual(await (await fetch(`${base}/api/mandates?wallet=${wallet}`)).json());
    const rejected = asTask(await client.sendMessage(send({ parts: [{ data: { wallet: '0x123' } }] })));
    expect(rejected.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
  });

  it("buys a 0.099 USDC skill inside a task with x402's extension (the README's snippet): sealed pack, ledger row, balance moved once; a replay charges nothing", async () => {
    const account = await freshBuyer();
    const before = await balance(account.address);
    const { found, asked, payload, paid, pack, receipt } = (await runReadmeSnippet('a2a-1', {
      baseUrl: base,
      scope: { account },
      returns: ['found', 'asked', 'payload', 'paid', 'pack', 'receipt'],
    })) as Record<string, any>;
    expect(dataOf(asTask(found), 'ranked-skills').results[0].skill_id).toEqual(expect.any(String));
    expect(asked.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const meta = asked.status.message.metadata;
    expect(meta['x402.payment.status']).toBe('payment-required');
    expect(meta['x402.payment.required'].accepts[0]).toMatchObject({
      scheme: 'exact',
      network: 'eip155:8453',
      amount: String(PRICE),
      asset: USDC,
      payTo: TREASURY,
    });

    expect(paid.status.state, JSON.stringify(paid.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(paid.status.message.metadata['x402.payment.status']).toBe('payment-completed');
    expect(receipt).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(receipt.payer.toLowerCase()).toBe(account.address.toLowerCase());
    expect(Object.keys(pack.sealed_pack.files)).toContain('SKILL.md');
    // The live answer that settled the payment is where the license is given.
    expect(pack.license.token).toEqual(expect.any(String));
    const packs = (await (await fetch(`${base}/api/packs?skill=${SKILL}`)).json()) as any;
    expect(pack.seal).toBe(packs.seal.value);
    const keys = createLocalJWKSet((await jwks()) as never);
    const signed = JSON.parse(new TextDecoder().decode((await compactVerify(pack.receipt, keys, { algorithms: ['ES256'] })).payload));
    expect(signed).toMatchObject({ kind: 'unlock', sub: SKILL, tx: receipt.transaction.toLowerCase() });
    expect(await balance(account.address)).toBe(before - PRICE);
    expect(await proofRows(receipt.transaction)).toHaveLength(1);

    // The same signed payment in a new buy task: nothing more is charged, no second row.
    const client = await new ClientFactory().createFromUrl(base);
    const payment = { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload };
    const again = asTask(await client.sendMessage(send({ parts: [{ data: { skill: SKILL, buy: true } }] })));
    const replayed = asTask(
      await client.sendMessage(
        send({ taskId: again.id, contextId: again.contextId, parts: [{ text: 'paying again' }], metadata: payment }),
      ),
    );
    expect(replayed.status?.state).not.toBe(TaskState.TASK_STATE_WORKING);
    expect(await balance(account.address)).toBe(before - PRICE);
    expect(await proofRows(receipt.transaction)).toHaveLength(1);
  });

  it("the README's snippet as written, run again by the owner and for a skill above x402Client's default $1 cap (issue 51)", async () => {
    const account = await freshBuyer();
    const before = await balance(account.address);
    const run = async (skill?: [string, string]) =>
      (await runReadmeSnippet('a2a-1', {
        baseUrl: base,
        scope: { account },
        returns: ['paid', 'pack', 'receipt'],
        ...(skill ? { skill } : {}),
      })) as Record<string, any>;
    const first = await run();
    expect(first.paid.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const sale = String(first.receipt.transaction).toLowerCase();

    // The owner again: the pack, nothing charged, and x402's receipt names the sale that made it the owner.
    const again = await run();
    expect(again.paid.status.state, JSON.stringify(again.paid.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.pack).toMatchObject({ seal: first.pack.seal, access: { granted: true, charged_atomic: '0' } });
    expect(again.receipt).toMatchObject({ success: true, transaction: sale, network: 'eip155:8453' });
    expect(await balance(account.address)).toBe(before - PRICE);

    // A $1.99 skill: over @x402/core's default cap, which the snippet raises.
    const dear = await run([SKILL, DEAR_SKILL]);
    expect(dear.paid.status.state, JSON.stringify(dear.paid.status)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dear.receipt).toMatchObject({ success: true });
    expect(await balance(account.address)).toBe(before - PRICE - DEAR_PRICE);
  });

  it('names the x402 extension back as activated to a client that asks for it', async () => {
    const res = await fetch(`${base}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': X402_EXTENSION },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill: SKILL, buy: true } }] } },
      }),
    });
    expect(res.headers.get('a2a-extensions')).toBe(X402_EXTENSION);
    expect(((await res.json()) as any).result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('answers JSON-RPC errors in 1.0: -32601, -32602 with data.field, -32001, and a refused ListTasks', async () => {
    const rpc = async (body: unknown) =>
      (await (
        await fetch(`${base}/api/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify(body),
        })
      ).json()) as any;
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} })).error.code).toBe(-32601);
    const invalid = await rpc({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { messageId: 'm', parts: [] } } });
    expect(invalid.error).toMatchObject({ code: -32602, data: { field: 'params.message.parts' } });
    expect((await rpc({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'no-such-task' } })).error.code).toBe(-32001);
    expect((await rpc({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 'x'.repeat(5000) } })).error.code).toBe(-32001);
    const listed = await rpc({ jsonrpc: '2.0', id: 5, method: 'ListTasks', params: {} });
    expect(listed.error.code).toBe(-32004);
    const unknownVersion = await (
      await fetch(`${base}/api/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '9.9' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: 'x' } }),
      })
    ).json();
    expect((unknownVersion as any).error.message).toMatch(/9\.9/);
  });
});

describe('A2A v0.3 with the stock 0.3 client, same endpoint', () => {
  it('searches with a text part and evaluates a skill', async () => {
    const client = await new ClientFactoryV03().createFromUrl(base);
    const found = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'rotate a leaked AWS access key everywhere it is used' }],
      },
    })) as any;
    expect([found.kind, found.status.state]).toEqual(['task', 'completed']);
    expect(found.artifacts[0].parts[0]).toMatchObject({ kind: 'data' });
    expect(found.artifacts[0].parts[0].data.results[0].skill_id).toBe('leaked-credential-rotation');
    const stored = (await client.getTask({ id: found.id })) as any;
    expect(stored.status.state).toBe('completed');

    const evaluated = (await client.sendMessage({
      message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'data', data: { skill: 'csv-cleaner' } }] },
    })) as any;
    expect(evaluated.artifacts[0].name).toBe('evaluation');
    expect(evaluated.artifacts[0].parts[0].data.evaluate.challenge_shape.maxAmountRequired).toBe('99000');
  });

  it("buys the same 0.099 USDC skill inside a task with x402's extension metadata; a replay charges nothing", async () => {
    const account = await freshBuyer();
    const client = await new ClientFactoryV03().createFromUrl(base);
    const asked = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: SKILL, buy: true } }],
      },
    })) as any;
    expect(asked.status.state).toBe('input-required');
    const required = asked.status.message.metadata['x402.payment.required'];
    expect(required.accepts[0]).toMatchObject({ amount: String(PRICE), asset: USDC });
    const payload = await signer(account).createPaymentPayload(required);
    const before = await balance(account.address);
    const message = {
      kind: 'message' as const,
      role: 'user' as const,
      parts: [{ kind: 'text' as const, text: 'Here is the payment.' }],
      metadata: { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload },
    };
    const paid = (await client.sendMessage({
      message: { ...message, messageId: crypto.randomUUID(), taskId: asked.id, contextId: asked.contextId },
    })) as any;
    expect(paid.status.state, JSON.stringify(paid.status)).toBe('completed');
    const [receipt] = paid.status.message.metadata['x402.payment.receipts'];
    expect(receipt).toMatchObject({ success: true, network: 'eip155:8453' });
    const pack = paid.artifacts.find((a: any) => a.name === 'sealed-pack').parts[0].data;
    const packs = (await (await fetch(`${base}/api/packs?skill=${SKILL}`)).json()) as any;
    expect(pack.seal).toBe(packs.seal.value);
    expect(pack.license.token).toEqual(expect.any(String));
    const stored = JSON.stringify(await client.getTask({ id: paid.id }));
    expect(stored.includes(pack.license.token), 'the stored task holds the license token').toBe(false);
    expect(await balance(account.address)).toBe(before - PRICE);
    expect(await proofRows(receipt.transaction)).toHaveLength(1);

    const again = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: SKILL, buy: true } }],
      },
    })) as any;
    await client.sendMessage({ message: { ...message, messageId: crypto.randomUUID(), taskId: again.id, contextId: again.contextId } });
    expect(await balance(account.address)).toBe(before - PRICE);
    expect(await proofRows(receipt.transaction)).toHaveLength(1);
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
});

describe("A2A tasks are their creator's, through the local edge (issue 50, finding 8)", () => {
  // Two viewers of the edge, told apart as CloudFront tells them apart: by the address they come from.
  const A = '127.0.0.41';
  const B = '127.0.0.42';
  /** A JSON-RPC call from `viewer`: A2A 1.0 (A2A-Version: 1.0), or v0.3 (no header). */
  const rpc = (viewer: string, method: string, params: Record<string, unknown>, version: '1.0' | '0.3' = '1.0') =>
    requestFrom(viewer, `${base}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(version === '1.0' ? { 'A2A-Version': '1.0' } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const message = (parts: unknown[], more: Record<string, unknown> = {}) => ({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...more },
  });
  const openBuy = async (viewer: string) => {
    const res = await rpc(viewer, 'SendMessage', message([{ data: { skill: SKILL, buy: true } }]));
    const task = res.body.result.task;
    expect(task.status.state, res.text).toBe('TASK_STATE_INPUT_REQUIRED');
    return task;
  };
  const paymentOf = async (account: PrivateKeyAccount, task: any) => ({
    'x402.payment.status': 'payment-submitted',
    'x402.payment.payload': await signer(account).createPaymentPayload(task.status.message.metadata['x402.payment.required']),
  });
  const sealedPack = (task: any) => task.artifacts.find((a: any) => a.name === 'sealed-pack')?.parts[0].data;

  /** A's purchase inside a task: the live answer that settled it, and the task's id. */
  let paid: { task: any; text: string };
  beforeAll(async () => {
    const account = await freshBuyer();
    const asked = await openBuy(A);
    const res = await rpc(
      A,
      'SendMessage',
      message([{ text: 'Here is the payment.' }], { taskId: asked.id, metadata: await paymentOf(account, asked) }),
    );
    expect(res.body.result?.task?.status.state, res.text).toBe('TASK_STATE_COMPLETED');
    paid = { task: res.body.result.task, text: res.text };
  });

  it("answers B's GetTask, tasks/get, CancelTask and tasks/cancel of A's completed task as for an unknown id, and nothing B gets holds the license", async () => {
    const license = sealedPack(paid.task).license.token;
    expect(license).toMatch(/^ey/);
    const calls: [string, '1.0' | '0.3'][] = [
      ['GetTask', '1.0'],
      ['CancelTask', '1.0'],
      ['tasks/get', '0.3'],
      ['tasks/cancel', '0.3'],
    ];
    for (const [method, version] of calls) {
      const theirs = await rpc(B, method, { id: paid.task.id }, version);
      expect(theirs.body.error?.code, `${method}: ${theirs.text.slice(0, 120)}`).toBe(-32001);
      const unknown = crypto.randomUUID();
      const none = await rpc(B, method, { id: unknown }, version);
      expect(theirs.text).toBe(none.text.replace(unknown, paid.task.id));
      expect(theirs.text.includes(license), `${method}: B got the license token`).toBe(false);
      expect(theirs.text).not.toMatch(/sealed_pack|license/);
    }
  });

  it("answers B's SendMessage naming A's open task, with B's own signed payment, as for an unknown id: nothing is settled and A's task is as A left it", async () => {
    const asked = await openBuy(A);
    const account = await freshBuyer();
    const before = await balance(account.address);
    const theirs = await rpc(
      B,
      'SendMessage',
      message([{ text: 'my payment' }], { taskId: asked.id, metadata: await paymentOf(account, asked) }),
    );
    expect(theirs.body.error?.code, theirs.text.slice(0, 120)).toBe(-32001);
    expect(theirs.text).not.toMatch(/sealed_pack|license|x402\.payment\.required/);
    expect(await balance(account.address)).toBe(before);
    const mine = (await rpc(A, 'GetTask', { id: asked.id })).body.result;
    expect(mine.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(JSON.stringify(mine.history)).not.toContain('my payment');
  });

  it('keeps no license in the stored task: A reads its task back without the token the live answer gave, and that token redeems the pack', async () => {
    const live = sealedPack(paid.task);
    const token = live.license.token;
    const read = await rpc(A, 'GetTask', { id: paid.task.id });
    expect(read.body.result.status.state).toBe('TASK_STATE_COMPLETED');
    const stored = sealedPack(read.body.result);
    expect(stored.sealed_pack).toEqual(live.sealed_pack);
    expect(stored.license).toBeUndefined();
    expect(read.text.includes(token), 'the stored task holds the license token').toBe(false);
    const legacy = await rpc(A, 'tasks/get', { id: paid.task.id }, '0.3');
    expect(legacy.body.result.status.state).toBe('completed');
    expect(legacy.text.includes(token), 'the stored task holds the license token (v0.3)').toBe(false);
    // The live answer's license is the buyer's: it gets the pack again.
    const redeemed = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'X-LICENSE': token } });
    expect(redeemed.status).toBe(200);
    expect(((await redeemed.json()) as any).seal).toBe(live.seal);
  });
});

describe('A2A limits', () => {
  it('says on GET /api/a2a that the limit is per caller, and which versions the endpoint speaks', async () => {
    const info = (await (await fetch(`${base}/api/a2a`)).json()) as any;
    expect(info.rate_limit).toMatch(/^120 requests per rolling 60 s per caller/);
    expect(info.protocolVersions).toEqual(['1.0', '0.3']);
  });

  it('lets 120 requests through per minute in one instance and answers the 121st with 429 and Retry-After', async () => {
    // A process of its own: one "isolate" whose limiter no other test has touched.
    const s = await runStart({
      EPHEMERAL: '1',
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      RPC_URLS: rpcUrl,
      USDC_ADDRESS: USDC,
      USDBC_ADDRESS: inject('usdbc'),
      TREASURY_ADDRESS: TREASURY,
    });
    try {
      const sendOne = () =>
        fetch(`${s.baseUrl}/api/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}',
        });
      const statuses: number[] = [];
      for (let i = 0; i < 120; i++) statuses.push((await sendOne()).status);
      expect(statuses.every((x) => x === 200)).toBe(true);
      const limited = await sendOne();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await limited.json()) as any).error.code).toBe(-32029);
    } finally {
      await s.interrupt();
    }
  });
});
