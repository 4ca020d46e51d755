/**
 * A2A at /api/a2a through the A2A SDK's request handler, with tasks in DynamoDB: JSON-RPC in
 * A2A 1.0 (SendMessage, GetTask, CancelTask) and, on the same endpoint, v0.3 (message/send,
 * tasks/get, tasks/cancel) through the SDK's v0.3 compatibility handler, chosen by the
 * request's A2A-Version header as the SDK's own transport chooses (a2a-version.ts). The agent
 * below sees 1.0 objects only. A message: a text part describing a need → a completed task whose artifact
 * ranks skills with prices and the next HTTP calls; a data part {"skill": id} → the skill's
 * free evaluation and its challenge; {"wallet", "skill"} → the access decision (artifact
 * `access-decision`, as GET /api/access); {"wallet"} alone → the wallet's AP2 mandates
 * (artifact `mandates`, as GET /api/mandates); {"skill", "buy": true} → `input-required` with
 * x402's payment requirements (the x402 Payments Extension for A2A, standalone flow), whose
 * signed payment, sent in the same task, is settled by the service; {"skill", "txHash"} →
 * the unlock of a transfer (artifact `sealed-pack`). The access answers come from the access
 * domain's own functions, never a copy of its rules. The body is read within the platform's
 * limits and the request checked (a2a-request.ts) before the SDK sees it; the SDK gets a task
 * store that never rejects (task-store-guard.ts). The per-caller rate limit is the route table's.
 * A task is its creator's: the SDK's user is the caller (a pseudonym of its address), the task
 * store keeps each task for it and finds it for nobody else, and the license an unlock hands out
 * is in the live answer only, never in the stored task (docs/SECURITY.md, "An A2A task is its
 * creator's").
 * A client that asks for the x402 extension (A2A-Extensions, or v0.3's X-A2A-Extensions) gets it
 * named back as activated.
 */
import { randomUUID } from 'node:crypto';
import { Extensions, HTTP_EXTENSION_HEADER, Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type TaskStore,
  type User,
} from '@a2a-js/sdk/server';
import { decideAccess, decisionView, mandatesDocument, unlockPack, type AccessDecision } from '../access';
import { callerId, challengeFor, settleResponse, type PresentedPayment } from '../payments';
import { AppError } from '../platform/errors';
import { rankSkills } from '../catalog';
import { ADDRESS, TX_HASH } from '../contract/chain';
import { links } from '../contract/links';
import { ROUTES, type RouteDefinition } from '../contract/routes';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { logger } from '../platform/logger';
import { espCycle } from '../discovery';
import { checkA2aRequest, forceBlocking } from './a2a-request';
import { A2A_PROTOCOL_VERSION, A2A_X402_EXTENSION } from './agent-card';
import { LEGACY_VERSION, requestedVersion, speaksLegacy } from './a2a-version';
import { signedCard } from './card-routes';
import { readRpcBody, rpcError, rpcId, RPC_CODES } from './json-rpc';
import type { AgentsPorts } from './ports';
import { guardTaskStore } from './task-store-guard';

/** The one answer to a task-store fault: never the store's own error text. */
const STORE_FAULT = 'Internal error: the task store is temporarily unavailable. Retry with exponential backoff (2 s, 4 s, 8 s).';
/** What a failed execution tells the caller; the cause goes to the log only. */
const EXECUTION_FAULT = 'The agent hit a temporary fault and recorded nothing else. Retry with exponential backoff (2 s, 4 s, 8 s).';

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });
const dataPart = (data: Record<string, unknown>): Part => ({
  content: { $case: 'data', value: data },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});
/** A part's text, or undefined. */
const textOf = (part: Part): string | undefined => (part.content?.$case === 'text' ? part.content.value : undefined);
/** A part's data when it is a JSON object, or undefined. */
const dataOf = (part: Part): Record<string, unknown> | undefined => {
  const value: unknown = part.content?.$case === 'data' ? part.content.value : undefined;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
};

const agentMessage = (text: string, taskId: string, contextId: string, metadata?: Record<string, unknown>): Message => ({
  messageId: randomUUID(),
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  taskId,
  contextId,
  metadata,
  extensions: [],
  referenceTaskIds: [],
});

/** One line for the task's status: granted or not, and through what; the artifact carries the details and next steps. */
function decisionText(decision: AccessDecision, wallet: string, skill: string): string {
  switch (decision.via) {
    case 'one-time':
      return `Granted: ${wallet} owns ${skill} (one-time, ${decision.source === 'transfer' ? `purchase ${decision.txHash}` : 'meter draw'}). Unlock without paying again: POST /api/pay with SIGN-IN-WITH-X signed by the wallet.`;
    case 'subscription':
      return `Granted: ${wallet} may use ${skill} through subscription ${decision.plan} until ${decision.until}${decision.cancelled ? ' (cancelled; it runs to the end of the period)' : ''}. Unlock: POST /api/pay with SIGN-IN-WITH-X signed by the wallet.`;
    case 'meter':
      return `Granted via meter: ${wallet}'s meter can pay ${decision.price} atomic USDC for ${skill}; a signed draw (POST /api/meter, action draw) makes it the wallet's. The artifact's next lists how.`;
    case 'none':
      return `Not granted: ${wallet} has no access to ${skill} (${decision.reason}). The artifact's next lists how to get it: pay once, subscribe, or use a meter.`;
  }
}

const X402_STATUS = 'x402.payment.status';
const X402_REQUIRED = 'x402.payment.required';
const X402_PAYLOAD = 'x402.payment.payload';
const X402_RECEIPTS = 'x402.payment.receipts';
const X402_ERROR = 'x402.payment.error';

/** The skill a payment-required task was opened for: the `skill` of the resource URL its requirements name. */
function skillOfRequired(task: Task | undefined): string | undefined {
  const required = task?.status?.message?.metadata?.[X402_REQUIRED] as { resource?: { url?: unknown } } | undefined;
  const url = required?.resource?.url;
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).searchParams.get('skill') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * The agent for one request. `context` is the request's (its caller included); `licenses` receives
 * each license an unlock kept out of its task, by the artifact it belongs in, for `postA2a` to put
 * in the answer.
 */
function executor(
  ports: AgentsPorts,
  tasks: TaskStore,
  baseUrl: string,
  sourceIp: string,
  context: ServerCallContext,
  licenses: Map<string, unknown>,
): AgentExecutor {
  const finish = (
    bus: ExecutionEventBus,
    ctx: RequestContext,
    state: TaskState,
    text: string,
    metadata?: Record<string, unknown>,
  ): void => {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        status: { state, message: agentMessage(text, ctx.taskId, ctx.contextId, metadata), timestamp: ports.now().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  };
  /**
   * A purchase settled through the access domain's unlock, as POST /api/pay settles it (a txHash,
   * or x402 v2's signed authorization): the pack as artifact `sealed-pack`. A refusal ends the
   * task `failed` with the API's message, or leaves it `input-required` when a retry can help.
   * The license is a bearer credential: the task, which is stored, gets the pack without it.
   */
  const unlock = async (
    bus: ExecutionEventBus,
    ctx: RequestContext,
    publish: (name: string, data: Record<string, unknown>) => string,
    skill: string,
    proof: { txHash?: `0x${string}`; payment?: PresentedPayment },
  ): Promise<void> => {
    try {
      const { body, settlement } = await unlockPack(
        {
          proof: { skill, txHash: proof.txHash, license: undefined, signInWithX: undefined },
          payment: proof.payment,
          sourceIp,
        },
        ports.access,
        baseUrl,
      );
      const { license, ...pack } = body as Record<string, unknown>;
      const artifactId = publish('sealed-pack', pack);
      if (license !== undefined) licenses.set(artifactId, license);
      // x402's settlement response, as PAYMENT-RESPONSE carries it over HTTP.
      const receipts = settlement ? [settleResponse(settlement)] : [];
      return finish(
        bus,
        ctx,
        TaskState.TASK_STATE_COMPLETED,
        license === undefined
          ? `Paid: ${skill} unlocked; the pack is the artifact "sealed-pack".`
          : `Paid: ${skill} unlocked; the pack is the artifact "sealed-pack". Its license token is in the answer to this message only, never in the stored task: keep it.`,
        proof.payment !== undefined ? { [X402_STATUS]: 'payment-completed', [X402_RECEIPTS]: receipts } : undefined,
      );
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const reason = String(e.details?.['reason'] ?? e.code);
      const metadata = proof.payment !== undefined ? { [X402_STATUS]: 'payment-failed', [X402_ERROR]: reason } : undefined;
      return finish(
        bus,
        ctx,
        e.retry ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_FAILED,
        `${e.message} ${e.tip}`,
        metadata,
      );
    }
  };
  // Neither method may reject: the SDK runs execute() unawaited and puts the error's text in the task.
  const run = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const task: Task = {
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: ports.now().toISOString() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    const artifact = (name: string, data: Record<string, unknown>): string => {
      const artifactId = randomUUID();
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: { artifactId, name, description: '', parts: [dataPart(data)], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      return artifactId;
    };
    // x402's A2A extension is named back as activated to a client that asked for it.
    if (ctx.context.requestedExtensions?.includes(A2A_X402_EXTENSION)) ctx.context.addActivatedExtension(A2A_X402_EXTENSION);
    // x402's A2A extension: the signed payment for the task's payment-required, settled by the service.
    const meta = ctx.userMessage.metadata ?? {};
    if (meta[X402_STATUS] === 'payment-submitted') {
      const skill = skillOfRequired(ctx.task);
      const payload = meta[X402_PAYLOAD];
      if (!skill || payload === null || typeof payload !== 'object')
        return finish(
          bus,
          ctx,
          TaskState.TASK_STATE_REJECTED,
          `A payment is submitted in the task that asked for it (taskId of the payment-required task), with the signed PaymentPayload under metadata "${X402_PAYLOAD}".`,
        );
      // Handed on as the object it is: no base64 round trip inside the process (issue 50).
      return unlock(bus, ctx, artifact, skill, { payment: { version: 2, value: payload, field: `metadata "${X402_PAYLOAD}"` } });
    }
    // A buy: {"skill", "buy": true} asks for the payment (x402's A2A extension); {"skill", "txHash"} settles a transfer.
    const data = ctx.userMessage.parts.flatMap((p) => {
      const d = dataOf(p);
      return d ? [d] : [];
    });
    const dataBuy = data.find((d) => typeof d['skill'] === 'string' && (d['buy'] === true || typeof d['txHash'] === 'string'));
    if (dataBuy) {
      const skill = String(dataBuy['skill']).trim();
      const txHash = dataBuy['txHash'];
      if (typeof txHash === 'string') {
        if (!TX_HASH.test(txHash)) return finish(bus, ctx, TaskState.TASK_STATE_REJECTED, '`txHash` must be 0x followed by 64 hex digits.');
        return unlock(bus, ctx, artifact, skill, { txHash: txHash as `0x${string}` });
      }
      try {
        const { v2 } = challengeFor(skill, ports, baseUrl);
        return finish(
          bus,
          ctx,
          TaskState.TASK_STATE_INPUT_REQUIRED,
          `Payment is required: ${v2.accepts[0]!.amount} atomic USDC for ${skill}. Sign one of "${X402_REQUIRED}".accepts (x402 exact, EIP-3009) and send it in this task with metadata "${X402_STATUS}": "payment-submitted" and "${X402_PAYLOAD}"; or transfer it and send {"skill","txHash"}.`,
          { [X402_STATUS]: 'payment-required', [X402_REQUIRED]: v2 },
        );
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return finish(bus, ctx, TaskState.TASK_STATE_REJECTED, `${e.message} ${e.tip}`);
      }
    }
    // A wallet turns a data part into an access question: its decision for a skill, or its mandates.
    const dataWallet = data.find((d) => 'wallet' in d);
    if (dataWallet) {
      const { wallet, skill } = dataWallet;
      if (typeof wallet !== 'string' || !ADDRESS.test(wallet.trim())) {
        return finish(
          bus,
          ctx,
          TaskState.TASK_STATE_REJECTED,
          '`wallet` must be a wallet address: 0x followed by 40 hex digits, e.g. {"wallet":"0x…","skill":"<id>"}.',
        );
      }
      const address = wallet.trim();
      if (skill === undefined) {
        const document = await mandatesDocument(address, ports.access);
        artifact('mandates', document);
        return finish(
          bus,
          ctx,
          TaskState.TASK_STATE_COMPLETED,
          `${address} has ${document.count} AP2 mandate${document.count === 1 ? '' : 's'}. Add "skill":"<id>" to the data part for its access to one skill.`,
        );
      }
      if (typeof skill !== 'string')
        return finish(bus, ctx, TaskState.TASK_STATE_REJECTED, '`skill` must be a catalog id (a string), e.g. "csv-cleaner".');
      const entry = ports.access.catalog.get(skill.trim());
      if (!entry) {
        return finish(
          bus,
          ctx,
          TaskState.TASK_STATE_REJECTED,
          `Unknown skill "${skill.slice(0, 100)}". Send a text part describing your need to find skill ids.`,
        );
      }
      const decision = await decideAccess(address, entry, ports.access.now(), ports.access);
      artifact('access-decision', decisionView(decision, entry, address, ports.access, baseUrl));
      return finish(bus, ctx, TaskState.TASK_STATE_COMPLETED, decisionText(decision, address, entry.id));
    }
    const dataSkill = data.find((d) => typeof d['skill'] === 'string');
    if (dataSkill) {
      const id = String(dataSkill['skill']);
      const entry = ports.catalog.get(id);
      if (!entry)
        return finish(
          bus,
          ctx,
          TaskState.TASK_STATE_REJECTED,
          `Unknown skill "${id.slice(0, 100)}". Send a text part describing your need to find skill ids.`,
        );
      const cycle = await espCycle(entry, ports, baseUrl);
      const evaluation = ports.catalog.evaluation(entry.id)!;
      artifact('evaluation', { ...cycle, outline_document: evaluation.outline, sample_markdown: evaluation.sample });
      return finish(
        bus,
        ctx,
        TaskState.TASK_STATE_COMPLETED,
        `${entry.name}: free evaluation attached. To buy, transfer ${entry.x402.amount} atomic USDC to the challenge's payTo on Base, then POST ${links(baseUrl).pay} with X-PAYMENT {"txHash","skill":"${entry.id}"}.`,
      );
    }
    const text = ctx.userMessage.parts
      .flatMap((p) => {
        const t = textOf(p);
        return t === undefined ? [] : [t];
      })
      .join(' ')
      .trim()
      .slice(0, 200);
    if (!text)
      return finish(
        bus,
        ctx,
        TaskState.TASK_STATE_REJECTED,
        'Send a text part describing what you need, a data part {"skill":"<id>"} to evaluate one skill, {"wallet":"0x…","skill":"<id>"} for a wallet\'s access to it, or {"wallet":"0x…"} for its AP2 mandates.',
      );
    const results = rankSkills(ports.catalog, text, 5, baseUrl).results.map((r) => ({
      ...r,
      next: [
        { step: 'evaluate', method: 'GET', url: r.outline },
        { step: 'evaluate', method: 'GET', url: r.sample },
        { step: 'challenge', method: 'GET', url: r.pay, expect: 402 },
        {
          step: 'unlock',
          method: 'POST',
          url: links(baseUrl).pay,
          headers: { 'X-PAYMENT': `{"txHash":"0x…","skill":"${r.skill_id}"}` },
        },
      ],
    }));
    artifact('ranked-skills', { query: text, results });
    finish(
      bus,
      ctx,
      TaskState.TASK_STATE_COMPLETED,
      results.length === 0
        ? `No skill matches "${text}". Post it as a bounty: POST ${links(baseUrl).intent_post}.`
        : `Best matches: ${results
            .slice(0, 3)
            .map((r) => `${r.name} (${r.price_label})`)
            .join('; ')}. Evaluate free before paying.`,
    );
  };
  return {
    async execute(ctx, bus) {
      try {
        await run(ctx, bus);
      } catch (e) {
        logger.error('a2a execution failed', e as Error);
        finish(bus, ctx, TaskState.TASK_STATE_FAILED, EXECUTION_FAULT);
      }
    },
    async cancelTask(taskId, bus) {
      // The guarded store never rejects; a failed read is reported by postA2a. The request's context: a task is found for its caller only.
      const task = await tasks.load(taskId, context);
      if (task)
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId: task.contextId,
            status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: ports.now().toISOString() },
            metadata: undefined,
          }),
        );
      bus.finished();
    },
  };
}

/**
 * The caller as the A2A SDK's user, whom the task store keeps a task for: the pseudonym of the
 * viewer address the edge reports (`callerId`, the one a claim's retry window keys), the strongest
 * identity every A2A request carries. An address tells callers apart; it authenticates nobody.
 */
const callerOf = (sourceIp: string): User => ({ isAuthenticated: false, userName: callerId(sourceIp) ?? '' });

type SealedPackAnswer = { artifacts?: { artifactId?: string; parts?: { data?: Record<string, unknown> }[] }[] };

/**
 * Puts each license an unlock kept out of its task back into its `sealed-pack` artifact in this
 * answer, the live answer to the send that settled the payment: the stored task never holds one.
 * The answer is the SDK's JSON, the task at 1.0's `result.task` or v0.3's `result`.
 */
function withLicenses(answer: unknown, legacy: boolean, licenses: ReadonlyMap<string, unknown>): void {
  const result = (answer as { result?: SealedPackAnswer & { task?: SealedPackAnswer } }).result;
  const task = legacy ? result : result?.task;
  for (const artifact of task?.artifacts ?? []) {
    const license = artifact.artifactId === undefined ? undefined : licenses.get(artifact.artifactId);
    const data = artifact.parts?.[0]?.data;
    if (license !== undefined && data) data['license'] = license;
  }
}

/** The header A2A 1.0 names requested and activated extensions in (lower-cased, as ApiRequest carries headers). */
const EXTENSIONS_HEADER = HTTP_EXTENSION_HEADER.toLowerCase();

const a2aLimit = (ROUTES as readonly RouteDefinition[]).find((r) => r.operationId === 'postA2a')?.rateLimit;

/** GET /api/a2a: where the agent card is, and the versions this endpoint speaks. */
export function getA2a(req: ApiRequest): ApiResponse {
  const l = links(req.baseUrl);
  return json(200, {
    ok: true,
    protocol: 'A2A',
    protocolVersion: A2A_PROTOCOL_VERSION,
    protocolVersions: [A2A_PROTOCOL_VERSION, LEGACY_VERSION],
    transport: 'JSONRPC',
    url: l.a2a,
    version_header: 'A2A-Version: 1.0 for A2A 1.0; none (or 0.3) for v0.3',
    agent_card: l.agent_card_a2a,
    agent_card_legacy: l.agent_card,
    jwks: l.jwks,
    methods: {
      [A2A_PROTOCOL_VERSION]: ['SendMessage', 'GetTask', 'CancelTask'],
      [LEGACY_VERSION]: ['message/send', 'tasks/get', 'tasks/cancel'],
    },
    extensions: [A2A_X402_EXTENSION],
    rate_limit: a2aLimit
      ? `${a2aLimit.requests} requests per rolling ${a2aLimit.perSeconds} s per caller (source address), counted per function instance`
      : 'none',
  });
}

/**
 * POST /api/a2a: JSON-RPC 2.0 through the A2A SDK's transport handler for the version the
 * request names (A2A-Version: 1.0, or none/0.3 for v0.3), as the SDK's own JSON-RPC route picks it.
 */
export async function postA2a(req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  const read = readRpcBody(req.body);
  if (!read.ok) {
    // Malformed JSON keeps JSON-RPC's HTTP 200; a body over the limits carries the limit's status (400, 413).
    return read.kind === 'malformed'
      ? rpcError(200, null, RPC_CODES.parseError, 'Parse error: the body is not valid JSON.')
      : rpcError(read.status, null, RPC_CODES.invalidRequest, read.message);
  }
  const body = read.value;
  const id = rpcId(body);
  const legacy = speaksLegacy(req.headers);
  const check = checkA2aRequest(body, legacy);
  if (!check.ok) return rpcError(200, id, check.code, check.message, check.data);
  forceBlocking(body, legacy);

  const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
  const card = await signedCard(ports, req.baseUrl);
  const version = requestedVersion(req.headers);
  try {
    validateVersion(version, card, 'JSONRPC');
  } catch (e) {
    // A version the card does not list: the SDK's VersionNotSupportedError, in its JSON-RPC shape.
    return json(200, { jsonrpc: '2.0', id, error: mapError(e) });
  }
  const context = new ServerCallContext({
    user: callerOf(req.sourceIp),
    requestedVersion: version,
    requestedExtensions: Extensions.parseServiceParameter(
      legacy ? (req.headers[LEGACY_HTTP_EXTENSION_HEADER.toLowerCase()] ?? req.headers[EXTENSIONS_HEADER]) : req.headers[EXTENSIONS_HEADER],
    ),
  });
  const tasks = guardTaskStore(ports.tasks);
  const licenses = new Map<string, unknown>();
  const requestHandler = new DefaultRequestHandler(card, tasks, executor(ports, tasks, req.baseUrl, req.sourceIp, context, licenses));
  const handler = legacy ? new LegacyJsonRpcTransportHandler(requestHandler) : new JsonRpcTransportHandler(requestHandler);
  const result = await handler.handle(body as Record<string, unknown>, context);
  // Whatever the SDK made of a store fault (task not found, or the store's error text), the answer is this.
  if (tasks.failed) return rpcError(503, id, RPC_CODES.internalError, STORE_FAULT, { retry: true });
  if (Symbol.asyncIterator in Object(result)) {
    return rpcError(200, id, -32004, 'Streaming is not supported by this agent (capabilities.streaming is false).');
  }
  withLicenses(result, legacy, licenses);
  const activated = context.activatedExtensions ?? [];
  const headers: Record<string, string> =
    activated.length > 0 ? { [legacy ? LEGACY_HTTP_EXTENSION_HEADER : EXTENSIONS_HEADER]: Extensions.toServiceParameter(activated) } : {};
  return json(200, result, headers);
}
