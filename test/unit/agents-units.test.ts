import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { canonicalizeAgentCard, verifyAgentCardSignature, type Task } from '@a2a-js/sdk';
import { InMemoryTaskStore, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { canonicalize } from 'json-canonicalize';
import { flattenedVerify, importJWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postA2a } from '../../lambdas/agents/a2a';
import { A2A_LIMITS } from '../../lambdas/agents/a2a-request';
import { dynamoTaskStore } from '../../lambdas/agents/adapters/dynamo-task-store';
import { getAgentCard } from '../../lambdas/agents/card-routes';
import { jwks } from '../../lambdas/ledger';
import { keyFileServiceSigner } from '../../lambdas/ledger/adapters/key-file-service-signer';
import { derToJose } from '../../lambdas/platform/adapters/der-signature';
import { postMcp } from '../../lambdas/agents/mcp';
import type { AgentsPorts } from '../../lambdas/agents/ports';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { x402BazaarExtension } from '../../lambdas/payments/adapters/x402-bazaar';
import { x402PaymentRequiredHeader } from '../../lambdas/payments/adapters/x402-payment-required';
import { readMarketConfig } from '../../lambdas/platform/config';
import type { ApiRequest } from '../../lambdas/platform/http';

describe('derToJose', () => {
  it('turns DER ECDSA signatures (what KMS returns) into the r||s form JWS verifies', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (let i = 0; i < 50; i++) {
      const data = Buffer.from(`message ${i}`);
      const raw = derToJose(sign('sha256', data, { key: privateKey, dsaEncoding: 'der' }));
      expect(raw).toHaveLength(64);
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
    }
  });
  it('refuses what is not a DER signature', () => {
    expect(() => derToJose(Buffer.from([1, 2, 3]))).toThrow();
  });
});

/** A task store that counts what the SDK asks of it, and can be made to fail as DynamoDB does. */
function countingStore(fail: { load?: Error; save?: Error } = {}): TaskStore & { loads: number; saves: number } {
  const inner = new InMemoryTaskStore();
  const store = {
    loads: 0,
    saves: 0,
    async load(id: string, context: ServerCallContext) {
      store.loads++;
      if (fail.load) throw fail.load;
      return inner.load(id, context);
    },
    async save(task: Task, context: ServerCallContext) {
      store.saves++;
      if (fail.save) throw fail.save;
      return inner.save(task, context);
    },
    list: inner.list.bind(inner),
  };
  return store;
}

const catalog = loadCatalogFiles();
const signer = keyFileServiceSigner(undefined);
// Only what A2A's own paths use; anything else (the ledger) is missing on purpose.
const agentsPorts = (tasks: TaskStore): AgentsPorts =>
  ({ catalog, tasks, serviceSigner: signer, now: () => new Date() }) as unknown as AgentsPorts;
const apiReq = (body: string, headers: Record<string, string> = {}): ApiRequest => ({
  method: 'POST',
  path: '/api/a2a',
  routeKey: 'POST /api/a2a',
  query: {},
  headers: { 'content-type': 'application/json', ...headers },
  pathParameters: {},
  body,
  requestId: 'r-1',
  baseUrl: 'http://127.0.0.1:9',
  sourceIp: '127.0.0.1',
});
const send = (message: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'message/send',
    params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'clean a csv' }], ...message } },
  });
const nested = (levels: number): string => {
  let value = 'null';
  for (let i = 0; i < levels; i++) value = `{"a":${value}}`;
  return value;
};
const DYNAMO_TEXT = /ValidationException|hashkey|2048 bytes|Maximum call stack|Cannot read/i;

describe('postA2a before the SDK', () => {
  it('refuses 1000 referenceTaskIds with -32602 naming the field, at once and without one task-store read', async () => {
    const store = countingStore();
    const ids = Array.from({ length: 1000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const started = performance.now();
    const res = await postA2a(apiReq(send({ referenceTaskIds: ids })), agentsPorts(store));
    expect(performance.now() - started).toBeLessThan(250);
    const body = JSON.parse(res.body as string);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602, data: { field: 'params.message.referenceTaskIds' } } });
    expect(body.error.message).toMatch(/referenceTaskIds.*at most 10/);
    expect(store.loads).toBe(0);
    // At the cap the SDK reads each reference once, beyond the reads of its own task's events (a send without references).
    await postA2a(apiReq(send({})), agentsPorts(store));
    const own = store.loads;
    store.loads = 0;
    const ten = await postA2a(apiReq(send({ referenceTaskIds: ids.slice(0, A2A_LIMITS.maxReferenceTaskIds) })), agentsPorts(store));
    expect(JSON.parse(ten.body as string).result.status.state).toBe('completed');
    expect(store.loads).toBe(own + 10);
  });

  it('answers a non-blocking send once its task is final, leaving no SDK event loop running after the answer', async () => {
    const store = countingStore();
    const body = JSON.parse(send({}));
    body.params.configuration = { blocking: false };
    const res = await postA2a(apiReq(JSON.stringify(body)), agentsPorts(store));
    expect(JSON.parse(res.body as string).result.status.state).toBe('completed');
    const saves = store.saves;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.saves).toBe(saves);
  });

  it('caps parts, text and data parts', async () => {
    const store = countingStore();
    const code = async (message: Record<string, unknown>) =>
      JSON.parse((await postA2a(apiReq(send(message)), agentsPorts(store))).body as string).error?.code;
    expect(await code({ parts: Array.from({ length: 21 }, () => ({ kind: 'text', text: 'x' })) })).toBe(-32602);
    expect(await code({ parts: [{ kind: 'text', text: 'x'.repeat(4001) }] })).toBe(-32602);
    expect(await code({ parts: [{ kind: 'data', data: { skill: 'x'.repeat(9000) } }] })).toBe(-32602);
    expect(store.saves + store.loads).toBe(0);
  });

  it('answers tasks/get of a 5000-character id with -32001 without asking the store, and does not echo the id', async () => {
    const store = countingStore({
      load: new Error('ValidationException: Size of hashkey has exceeded the maximum size limit of 2048 bytes'),
    });
    const res = await postA2a(
      apiReq(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'x'.repeat(5000) } })),
      agentsPorts(store),
    );
    const body = JSON.parse(res.body as string);
    expect(body.error.code).toBe(-32001);
    expect(res.body!.length).toBeLessThan(300);
    expect(res.body).not.toMatch(DYNAMO_TEXT);
    expect(store.loads).toBe(0);
  });

  it('refuses a body nested deeper than the platform allows: A2A and MCP answer -32600 with 400', async () => {
    const store = countingStore();
    const deep = send({ parts: [{ kind: 'data', data: JSON.parse(nested(30)) }] }).replace('"a":null', `"a":${nested(5000)}`);
    const a2a = await postA2a(apiReq(deep), agentsPorts(store));
    expect([a2a.statusCode, JSON.parse(a2a.body as string).error.code]).toEqual([400, -32600]);
    const mcp = await postMcp(apiReq(nested(5000), { accept: 'application/json, text/event-stream' }), agentsPorts(store));
    expect([mcp.statusCode, JSON.parse(mcp.body as string).error.code]).toEqual([400, -32600]);
    expect(store.saves).toBe(0);
  });
});

describe('postA2a when the task store or the agent fails', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it("answers a store that cannot save with one fixed -32603 and leaves no rejection unhandled (the SDK's unawaited error path)", async () => {
    const store = countingStore({ save: new RangeError('Maximum call stack size exceeded') });
    const res = await postA2a(apiReq(send({})), agentsPorts(store));
    await settle();
    expect(unhandled).toEqual([]);
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body as string)).toMatchObject({ id: 7, error: { code: -32603, data: { retry: true } } });
    expect(res.body).not.toMatch(DYNAMO_TEXT);
  });

  it("answers a store that cannot read with the same fixed -32603, never the store's text", async () => {
    const store = countingStore({
      load: new Error('ValidationException: Size of hashkey has exceeded the maximum size limit of 2048 bytes'),
    });
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const res = await postA2a(apiReq(JSON.stringify({ jsonrpc: '2.0', id: 4, method, params: { id: 'a-task' } })), agentsPorts(store));
      expect(res.statusCode).toBe(503);
      expect(JSON.parse(res.body as string).error.code).toBe(-32603);
      expect(res.body).not.toMatch(DYNAMO_TEXT);
    }
    await settle();
    expect(unhandled).toEqual([]);
  });

  it("fails the task with a fixed message when the agent throws, not the error's text", async () => {
    const store = countingStore();
    // No ledger in these ports: the evaluation path throws a TypeError inside the executor.
    const res = await postA2a(apiReq(send({ parts: [{ kind: 'data', data: { skill: 'csv-cleaner' } }] })), agentsPorts(store));
    await settle();
    expect(unhandled).toEqual([]);
    const task = JSON.parse(res.body as string).result;
    expect(task.status.state).toBe('failed');
    expect(task.status.message.parts[0].text).toMatch(/temporary fault/);
    expect(res.body).not.toMatch(DYNAMO_TEXT);
  });
});

describe('dynamoTaskStore', () => {
  it('refuses a task it cannot serialise with its own message, without calling DynamoDB', async () => {
    let sent = 0;
    const client = { send: async () => void sent++ } as unknown as DynamoDBClient;
    const task = {
      kind: 'task',
      id: 't-1',
      contextId: 'c',
      status: { state: 'working' },
      metadata: JSON.parse(nested(5000)),
    } as unknown as Task;
    await expect(dynamoTaskStore(client, () => new Date(), 'A2ATasks').save(task, {} as ServerCallContext)).rejects.toThrow(
      'Task t-1 cannot be serialised.',
    );
    expect(sent).toBe(0);
  });
});

describe('access over MCP and A2A', () => {
  const WALLET = '0x1111111111111111111111111111111111111111';
  const mandate = {
    id: `mnd_${'a'.repeat(32)}`,
    mandate: {
      vct: 'mandate.payment.open.1',
      wallet: WALLET,
      cnf: { address: '0x2222222222222222222222222222222222222222' },
      constraints: [{ type: 'payment.budget', currency: 'USDC', max: 1 }],
    },
    signature: '0x',
    status: 'active',
    createdAt: '2025-01-01T00:00:00.000Z',
    spent: 0n,
    occurrences: 0,
    transfers: [],
  };
  // The access ports the decision and the mandate list read; nothing owned, subscribed or metered.
  const withAccess = (tasks: TaskStore): AgentsPorts => {
    const access = {
      catalog,
      now: () => new Date(),
      ledger: { owned: async () => undefined },
      subscriptions: { list: async () => [] },
      meters: { get: async () => undefined },
      mandates: { list: async (wallet: string) => (wallet === WALLET ? [mandate] : []) },
    };
    return { ...agentsPorts(tasks), access } as unknown as AgentsPorts;
  };
  const mcpReq = (method: string, params: Record<string, unknown> = {}) =>
    apiReq(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), { accept: 'application/json, text/event-stream' });
  const mcpResult = async (method: string, params?: Record<string, unknown>) =>
    JSON.parse((await postMcp(mcpReq(method, params), withAccess(countingStore()))).body as string).result;
  const a2aTask = async (data: Record<string, unknown>) =>
    JSON.parse((await postA2a(apiReq(send({ parts: [{ kind: 'data', data }] })), withAccess(countingStore()))).body as string).result;

  it('lists check_access and list_mandates among the MCP tools, and unlock_skill takes ap2_mandate', async () => {
    const { tools } = await mcpResult('tools/list');
    const names = tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['check_access', 'list_mandates', 'unlock_skill']));
    expect(Object.keys(tools.find((t: { name: string }) => t.name === 'unlock_skill').inputSchema.properties)).toContain('ap2_mandate');
  });

  it('check_access and list_mandates answer what GET /api/access and GET /api/mandates answer', async () => {
    const decision = await mcpResult('tools/call', { name: 'check_access', arguments: { wallet: WALLET, skill_id: 'csv-cleaner' } });
    expect(decision.structuredContent).toMatchObject({ ok: true, wallet: WALLET, skill: 'csv-cleaner', granted: false, via: 'none' });
    expect(decision.structuredContent.next.map((n: { action: string }) => n.action)).toContain('pay_once');
    const listed = await mcpResult('tools/call', { name: 'list_mandates', arguments: { wallet: WALLET } });
    expect(listed.structuredContent).toMatchObject({
      ok: true,
      wallet: WALLET,
      count: 1,
      mandates: [{ id: mandate.id, status: 'active' }],
    });
    const bad = await mcpResult('tools/call', { name: 'check_access', arguments: { wallet: '0x123', skill_id: 'csv-cleaner' } });
    expect(bad.isError).toBe(true);
  });

  it('A2A: {"wallet","skill"} gives the access decision, {"wallet"} the mandates, a bad wallet is rejected', async () => {
    const decided = await a2aTask({ wallet: WALLET, skill: 'csv-cleaner' });
    expect(decided.status.state).toBe('completed');
    expect(decided.artifacts[0].name).toBe('access-decision');
    expect(decided.artifacts[0].parts[0].data).toMatchObject({ wallet: WALLET, skill: 'csv-cleaner', granted: false, via: 'none' });
    expect(decided.status.message.parts[0].text).toMatch(/^Not granted/);
    const mandates = await a2aTask({ wallet: WALLET });
    expect([mandates.status.state, mandates.artifacts[0].name]).toEqual(['completed', 'mandates']);
    expect(mandates.artifacts[0].parts[0].data).toMatchObject({ ok: true, wallet: WALLET, count: 1 });
    const bad = await a2aTask({ wallet: 'nope', skill: 'csv-cleaner' });
    expect(bad.status.state).toBe('rejected');
    expect(bad.status.message.parts[0].text).toMatch(/`wallet` must be a wallet address/);
    expect((await a2aTask({ wallet: WALLET, skill: 'no-such-skill' })).status.state).toBe('rejected');
  });
});

/** A 1.0 JSON-RPC request (A2A-Version: 1.0), in 1.0's wire form. */
const v1 = (method: string, params: Record<string, unknown>): ApiRequest =>
  apiReq(JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }), { 'a2a-version': '1.0' });

describe('postA2a in A2A 1.0', () => {
  it('answers SendMessage with a 1.0 task (enum names, parts by content) and GetTask reads it back', async () => {
    const store = countingStore();
    const sent = await postA2a(
      v1('SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'clean a csv' }] } }),
      agentsPorts(store),
    );
    const task = JSON.parse(sent.body as string).result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0]).toMatchObject({ name: 'ranked-skills', parts: [{ data: { query: 'clean a csv' } }] });
    expect(task.status.message.parts[0].text).toMatch(/^Best matches/);
    const read = JSON.parse((await postA2a(v1('GetTask', { id: task.id }), agentsPorts(store))).body as string).result;
    expect([read.id, read.status.state]).toEqual([task.id, 'TASK_STATE_COMPLETED']);
  });

  it('checks 1.0 params before the SDK: parts capped, -32602 naming the field, a 5000-character id not looked up', async () => {
    const store = countingStore();
    const answer = async (req: ApiRequest) => JSON.parse((await postA2a(req, agentsPorts(store))).body as string);
    const many = await answer(v1('SendMessage', { message: { messageId: 'm', parts: Array.from({ length: 21 }, () => ({ text: 'x' })) } }));
    expect(many.error).toMatchObject({ code: -32602, data: { field: 'params.message.parts' } });
    const long = await answer(v1('SendMessage', { message: { messageId: 'm', parts: [{ text: 'x'.repeat(4001) }] } }));
    expect(long.error.code).toBe(-32602);
    const big = await answer(v1('SendMessage', { message: { messageId: 'm', parts: [{ data: { skill: 'x'.repeat(9000) } }] } }));
    expect(big.error.code).toBe(-32602);
    expect((await answer(v1('GetTask', { id: 'x'.repeat(5000) }))).error.code).toBe(-32001);
    expect(store.saves + store.loads).toBe(0);
  });

  it('answers a store that cannot save with the same fixed -32603 and 503', async () => {
    const store = countingStore({
      save: new Error('ValidationException: Size of hashkey has exceeded the maximum size limit of 2048 bytes'),
    });
    const res = await postA2a(v1('SendMessage', { message: { messageId: 'm', parts: [{ text: 'csv' }] } }), agentsPorts(store));
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body as string)).toMatchObject({ id: 9, error: { code: -32603, data: { retry: true } } });
    expect(res.body).not.toMatch(DYNAMO_TEXT);
  });

  it('refuses ListTasks: a task is read by its id, by its creator', async () => {
    const res = await postA2a(v1('ListTasks', {}), agentsPorts(dynamoTaskStore({} as DynamoDBClient, () => new Date(), 'A2ATasks')));
    expect(JSON.parse(res.body as string).error.code).toBe(-32004);
  });
});

/** DynamoDB as the task store calls it (PutItem, GetItem by id), in memory, with every item kept for the test to read. */
function fakeDynamo(): { client: DynamoDBClient; items: Map<string, Record<string, AttributeValue>> } {
  const items = new Map<string, Record<string, AttributeValue>>();
  const client = {
    async send(command: unknown) {
      if (command instanceof PutItemCommand) {
        items.set(command.input.Item!['id']!.S!, command.input.Item!);
        return {};
      }
      if (command instanceof GetItemCommand) return { Item: items.get(command.input.Key!['id']!.S!) };
      throw new Error(`the task store sent ${String(command)}`);
    },
  } as unknown as DynamoDBClient;
  return { client, items };
}

describe("an A2A task is its creator's (issue 50, finding 8)", () => {
  const A = '198.51.100.1';
  const B = '198.51.100.2';
  const reading = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });
  // What the buy's challenge reads. Still no ledger or access ports: a payment that reached the agent would fail its task.
  const buyingPorts = (tasks: TaskStore): AgentsPorts =>
    ({
      ...agentsPorts(tasks),
      config: reading.config,
      configReading: reading,
      discoveryExtension: x402BazaarExtension,
      paymentRequiredHeader: x402PaymentRequiredHeader,
    }) as unknown as AgentsPorts;
  const from = (sourceIp: string, req: ApiRequest): ApiRequest => ({ ...req, sourceIp });
  const legacy = (method: string, params: Record<string, unknown>): ApiRequest =>
    apiReq(JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }));
  const answer = async (req: ApiRequest, ports: AgentsPorts) => {
    const res = await postA2a(req, ports);
    return { status: res.statusCode, text: res.body as string, body: JSON.parse(res.body as string) };
  };
  /** What a caller gets for an id no task has: the answer every other caller's task must look like. */
  const unknownTask = async (ports: AgentsPorts, req: (id: string) => ApiRequest, id: string) => {
    const unknown = crypto.randomUUID();
    const got = await answer(from(B, req(unknown)), ports);
    return { ...got.body, error: { ...got.body.error, message: got.body.error.message.replace(unknown, id) } };
  };

  it("answers another caller's GetTask, tasks/get, CancelTask and tasks/cancel of a task as for an unknown id; the creator still reads it", async () => {
    const { client, items } = fakeDynamo();
    const ports = agentsPorts(dynamoTaskStore(client, () => new Date(), 'A2ATasks'));
    const sent = await answer(
      from(A, v1('SendMessage', { message: { messageId: 'm-a', role: 'ROLE_USER', parts: [{ text: 'clean a csv' }] } })),
      ports,
    );
    const task = sent.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const requests: ((id: string) => ApiRequest)[] = [
      (id) => v1('GetTask', { id }),
      (id) => v1('CancelTask', { id }),
      (id) => legacy('tasks/get', { id }),
      (id) => legacy('tasks/cancel', { id }),
    ];
    for (const req of requests) {
      const theirs = await answer(from(B, req(task.id)), ports);
      expect(theirs.body.error?.code, theirs.text.slice(0, 120)).toBe(-32001);
      expect(theirs.body).toEqual(await unknownTask(ports, req, task.id));
      expect(theirs.text).not.toMatch(/ranked-skills|clean a csv/);
    }
    const mine = await answer(from(A, v1('GetTask', { id: task.id })), ports);
    expect([mine.body.result.id, mine.body.result.status.state]).toEqual([task.id, 'TASK_STATE_COMPLETED']);
    // The creator is kept as a pseudonym, never the address itself.
    expect(JSON.stringify([...items.values()])).not.toContain(A);
  });

  it("answers another caller's SendMessage and message/send into an open task as for an unknown id, and the task stays as its creator left it", async () => {
    const { client } = fakeDynamo();
    const ports = buyingPorts(dynamoTaskStore(client, () => new Date(), 'A2ATasks'));
    const buy = { messageId: 'm-buy', role: 'ROLE_USER', parts: [{ data: { skill: 'csv-cleaner', buy: true } }] };
    const open = (await answer(from(A, v1('SendMessage', { message: buy })), ports)).body.result.task;
    expect(open.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const payment = { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': { x402Version: 2, payload: {} } };
    const requests: ((id: string) => ApiRequest)[] = [
      (id) =>
        v1('SendMessage', {
          message: { messageId: 'm-b', role: 'ROLE_USER', taskId: id, parts: [{ text: 'my payment' }], metadata: payment },
        }),
      (id) =>
        legacy('message/send', {
          message: {
            kind: 'message',
            messageId: 'm-b',
            role: 'user',
            taskId: id,
            parts: [{ kind: 'text', text: 'my payment' }],
            metadata: payment,
          },
        }),
    ];
    for (const req of requests) {
      const theirs = await answer(from(B, req(open.id)), ports);
      expect(theirs.body.error?.code, theirs.text.slice(0, 120)).toBe(-32001);
      expect(theirs.body).toEqual(await unknownTask(ports, req, open.id));
      expect(theirs.text).not.toMatch(/x402\.payment\.required/);
    }
    // Had the payment reached the agent, the task would have failed (these ports cannot settle) and kept B's message.
    const mine = (await answer(from(A, v1('GetTask', { id: open.id })), ports)).body.result;
    expect(mine.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(JSON.stringify(mine.history)).not.toContain('my payment');
  });

  it('finds a task stored without its creator for nobody: who made it is unknown', async () => {
    const { client, items } = fakeDynamo();
    const ports = agentsPorts(dynamoTaskStore(client, () => new Date(), 'A2ATasks'));
    const sent = await answer(
      from(A, v1('SendMessage', { message: { messageId: 'm-a', role: 'ROLE_USER', parts: [{ text: 'csv' }] } })),
      ports,
    );
    const id = sent.body.result.task.id;
    // The item as the store wrote it before tasks had creators: id, task and expiry only.
    items.set(id, marshall({ id, task: items.get(id)!['task']!.S!, expiresAt: Math.floor(Date.now() / 1000) + 3600 }));
    for (const caller of [A, B]) expect((await answer(from(caller, v1('GetTask', { id })), ports)).body.error?.code).toBe(-32001);
  });
});

describe('agent card', () => {
  const cardReq = (headers: Record<string, string>): ApiRequest => ({
    ...apiReq(''),
    method: 'GET',
    path: '/.well-known/agent-card.json',
    headers,
  });
  const keys = async () => (await jwks(signer)).keys as (Record<string, unknown> & { kid: string })[];

  it('is A2A 1.0 to A2A-Version 1.0: both JSON-RPC interfaces, the x402 extension, skills with 1.0 fields; the SDK verifies it with the JWKS', async () => {
    const res = await getAgentCard(cardReq({ 'a2a-version': '1.0' }), agentsPorts(countingStore()));
    expect(res.headers['vary']).toBe('A2A-Version');
    const card = JSON.parse(res.body as string);
    expect(card.supportedInterfaces).toEqual([
      { url: 'http://127.0.0.1:9/api/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:9/api/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false, extendedAgentCard: false });
    expect(card.capabilities.extensions[0].uri).toBe('https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2');
    for (const skill of card.skills) expect(Object.keys(skill)).toEqual(expect.arrayContaining(['examples', 'inputModes', 'outputModes']));
    const published = await keys();
    const verify = verifyAgentCardSignature(async (kid) => published.find((k) => k.kid === kid)!);
    await expect(verify(card)).resolves.toBeUndefined();
    await expect(
      verify({ ...card, supportedInterfaces: [{ ...card.supportedInterfaces[0], url: 'https://evil.example/a2a' }] }),
    ).rejects.toThrow();
    expect(canonicalizeAgentCard(card)).not.toContain('signatures');
  });

  it('is the v0.3 card to a request naming no version or 0.3, signed over RFC 8785 of all of it', async () => {
    for (const headers of [{}, { 'a2a-version': '0.3' }]) {
      const card = JSON.parse((await getAgentCard(cardReq(headers), agentsPorts(countingStore()))).body as string);
      expect(card).toMatchObject({ protocolVersion: '0.3.0', url: 'http://127.0.0.1:9/api/a2a', preferredTransport: 'JSONRPC' });
      const { signatures, ...unsigned } = card;
      const sig = signatures[0];
      const kid = JSON.parse(Buffer.from(sig.protected, 'base64url').toString()).kid;
      const key = await importJWK(
        (await keys()).find((k) => k.kid === kid)!,
        'ES256',
      );
      const payload = Buffer.from(canonicalize(unsigned)).toString('base64url');
      await expect(flattenedVerify({ protected: sig.protected, signature: sig.signature, payload }, key)).resolves.toBeTruthy();
    }
  });
});
