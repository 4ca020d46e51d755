/**
 * A2A (v0.3.0, JSON-RPC) at /api/a2a through the A2A SDK's request handler, with tasks in
 * DynamoDB. message/send: a text part describing a need → a completed task whose artifact
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
 */
import { randomUUID } from 'node:crypto';
import type { Message, Task, TaskState } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { decideAccess, decisionView, mandatesDocument, unlockPack, type AccessDecision } from '../access';
import { challengeFor, settleResponse } from '../payments';
import { AppError } from '../platform/errors';
import { rankSkills } from '../catalog';
import { ADDRESS, TX_HASH } from '../contract/chain';
import { links } from '../contract/links';
import { ROUTES, type RouteDefinition } from '../contract/routes';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { logger } from '../platform/logger';
import { espCycle } from '../discovery';
import { checkA2aRequest, forceBlocking } from './a2a-request';
import { signedCard } from './card-routes';
import { readRpcBody, rpcError, rpcId, RPC_CODES } from './json-rpc';
import type { AgentsPorts } from './ports';
import { guardTaskStore } from './task-store-guard';

/** The one answer to a task-store fault: never the store's own error text. */
const STORE_FAULT = 'Internal error: the task store is temporarily unavailable. Retry with exponential backoff (2 s, 4 s, 8 s).';
/** What a failed execution tells the caller; the cause goes to the log only. */
const EXECUTION_FAULT = 'The agent hit a temporary fault and recorded nothing else. Retry with exponential backoff (2 s, 4 s, 8 s).';

const agentMessage = (text: string, taskId: string, contextId: string): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'agent',
  parts: [{ kind: 'text', text }],
  taskId,
  contextId,
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
  const required = task?.status.message?.metadata?.[X402_REQUIRED] as { resource?: { url?: unknown } } | undefined;
  const url = required?.resource?.url;
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).searchParams.get('skill') ?? undefined;
  } catch {
    return undefined;
  }
}

function executor(ports: AgentsPorts, tasks: TaskStore, baseUrl: string, sourceIp: string): AgentExecutor {
  const finish = (
    bus: ExecutionEventBus,
    ctx: RequestContext,
    state: TaskState,
    text: string,
    metadata?: Record<string, unknown>,
  ): void => {
    const message = agentMessage(text, ctx.taskId, ctx.contextId);
    bus.publish({
      kind: 'status-update',
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { state, message: metadata ? { ...message, metadata } : message, timestamp: ports.now().toISOString() },
      final: true,
    });
    bus.finished();
  };
  /**
   * A purchase settled through the access domain's unlock, as POST /api/pay settles it (a txHash,
   * or x402 v2's signed authorization): the pack as artifact `sealed-pack`. A refusal ends the
   * task `failed` with the API's message, or leaves it `input-required` when a retry can help.
   */
  const unlock = async (
    bus: ExecutionEventBus,
    ctx: RequestContext,
    publish: (name: string, data: Record<string, unknown>) => void,
    skill: string,
    proof: { txHash?: `0x${string}`; paymentSignature?: string },
  ): Promise<void> => {
    try {
      const { body, settlement } = await unlockPack(
        {
          proof: { skill, txHash: proof.txHash, license: undefined, signInWithX: undefined },
          paymentSignature: proof.paymentSignature,
          sourceIp,
        },
        ports.access,
        baseUrl,
      );
      publish('sealed-pack', body as Record<string, unknown>);
      // x402's settlement response, as PAYMENT-RESPONSE carries it over HTTP.
      const receipts = settlement ? [settleResponse(settlement)] : [];
      return finish(
        bus,
        ctx,
        'completed',
        `Paid: ${skill} unlocked; the pack is the artifact "sealed-pack" (keep its license token).`,
        proof.paymentSignature !== undefined ? { [X402_STATUS]: 'payment-completed', [X402_RECEIPTS]: receipts } : undefined,
      );
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const reason = String(e.details?.['reason'] ?? e.code);
      const metadata = proof.paymentSignature !== undefined ? { [X402_STATUS]: 'payment-failed', [X402_ERROR]: reason } : undefined;
      return finish(bus, ctx, e.retry ? 'input-required' : 'failed', `${e.message} ${e.tip}`, metadata);
    }
  };
  // Neither method may reject: the SDK runs execute() unawaited and puts the error's text in the task.
  const run = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const task: Task = {
      kind: 'task',
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: 'working', timestamp: ports.now().toISOString() },
      history: [ctx.userMessage],
    };
    bus.publish(task);
    const artifact = (name: string, data: Record<string, unknown>): void =>
      bus.publish({
        kind: 'artifact-update',
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { artifactId: randomUUID(), name, parts: [{ kind: 'data', data }] },
      });
    // x402's A2A extension: the signed payment for the task's payment-required, settled by the service.
    const meta = ctx.userMessage.metadata ?? {};
    if (meta[X402_STATUS] === 'payment-submitted') {
      const skill = skillOfRequired(ctx.task);
      const payload = meta[X402_PAYLOAD];
      if (!skill || payload === null || typeof payload !== 'object')
        return finish(
          bus,
          ctx,
          'rejected',
          `A payment is submitted in the task that asked for it (taskId of the payment-required task), with the signed PaymentPayload under metadata "${X402_PAYLOAD}".`,
        );
      const paymentSignature = Buffer.from(JSON.stringify(payload)).toString('base64');
      return unlock(bus, ctx, artifact, skill, { paymentSignature });
    }
    // A buy: {"skill", "buy": true} asks for the payment (x402's A2A extension); {"skill", "txHash"} settles a transfer.
    const dataBuy = ctx.userMessage.parts.find(
      (p) => p.kind === 'data' && typeof p.data['skill'] === 'string' && (p.data['buy'] === true || typeof p.data['txHash'] === 'string'),
    );
    if (dataBuy && dataBuy.kind === 'data') {
      const skill = String(dataBuy.data['skill']).trim();
      const txHash = dataBuy.data['txHash'];
      if (typeof txHash === 'string') {
        if (!TX_HASH.test(txHash)) return finish(bus, ctx, 'rejected', '`txHash` must be 0x followed by 64 hex digits.');
        return unlock(bus, ctx, artifact, skill, { txHash: txHash as `0x${string}` });
      }
      try {
        const { v2 } = challengeFor(skill, ports, baseUrl);
        return finish(
          bus,
          ctx,
          'input-required',
          `Payment is required: ${v2.accepts[0]!.amount} atomic USDC for ${skill}. Sign one of "${X402_REQUIRED}".accepts (x402 exact, EIP-3009) and send it in this task with metadata "${X402_STATUS}": "payment-submitted" and "${X402_PAYLOAD}"; or transfer it and send {"skill","txHash"}.`,
          { [X402_STATUS]: 'payment-required', [X402_REQUIRED]: v2 },
        );
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return finish(bus, ctx, 'rejected', `${e.message} ${e.tip}`);
      }
    }
    // A wallet turns a data part into an access question: its decision for a skill, or its mandates.
    const dataWallet = ctx.userMessage.parts.find((p) => p.kind === 'data' && 'wallet' in p.data);
    if (dataWallet && dataWallet.kind === 'data') {
      const { wallet, skill } = dataWallet.data;
      if (typeof wallet !== 'string' || !ADDRESS.test(wallet.trim())) {
        return finish(
          bus,
          ctx,
          'rejected',
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
          'completed',
          `${address} has ${document.count} AP2 mandate${document.count === 1 ? '' : 's'}. Add "skill":"<id>" to the data part for its access to one skill.`,
        );
      }
      if (typeof skill !== 'string') return finish(bus, ctx, 'rejected', '`skill` must be a catalog id (a string), e.g. "csv-cleaner".');
      const entry = ports.access.catalog.get(skill.trim());
      if (!entry) {
        return finish(
          bus,
          ctx,
          'rejected',
          `Unknown skill "${skill.slice(0, 100)}". Send a text part describing your need to find skill ids.`,
        );
      }
      const decision = await decideAccess(address, entry, ports.access.now(), ports.access);
      artifact('access-decision', decisionView(decision, entry, address, ports.access, baseUrl));
      return finish(bus, ctx, 'completed', decisionText(decision, address, entry.id));
    }
    const dataSkill = ctx.userMessage.parts.find(
      (p) => p.kind === 'data' && typeof (p.data as Record<string, unknown>)['skill'] === 'string',
    );
    if (dataSkill && dataSkill.kind === 'data') {
      const id = String(dataSkill.data['skill']);
      const entry = ports.catalog.get(id);
      if (!entry)
        return finish(
          bus,
          ctx,
          'rejected',
          `Unknown skill "${id.slice(0, 100)}". Send a text part describing your need to find skill ids.`,
        );
      const cycle = await espCycle(entry, ports, baseUrl);
      const evaluation = ports.catalog.evaluation(entry.id)!;
      artifact('evaluation', { ...cycle, outline_document: evaluation.outline, sample_markdown: evaluation.sample });
      return finish(
        bus,
        ctx,
        'completed',
        `${entry.name}: free evaluation attached. To buy, transfer ${entry.x402.amount} atomic USDC to the challenge's payTo on Base, then POST ${links(baseUrl).pay} with X-PAYMENT {"txHash","skill":"${entry.id}"}.`,
      );
    }
    const text = ctx.userMessage.parts
      .flatMap((p) => (p.kind === 'text' ? [p.text] : []))
      .join(' ')
      .trim()
      .slice(0, 200);
    if (!text)
      return finish(
        bus,
        ctx,
        'rejected',
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
      'completed',
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
        finish(bus, ctx, 'failed', EXECUTION_FAULT);
      }
    },
    async cancelTask(taskId, bus) {
      // The guarded store never rejects; a failed read is reported by postA2a.
      const task = await tasks.load(taskId);
      if (task)
        bus.publish({
          kind: 'status-update',
          taskId,
          contextId: task.contextId,
          status: { state: 'canceled', timestamp: ports.now().toISOString() },
          final: true,
        });
      bus.finished();
    },
  };
}

const a2aLimit = (ROUTES as readonly RouteDefinition[]).find((r) => r.operationId === 'postA2a')?.rateLimit;

/** GET /api/a2a: where the agent card is. */
export function getA2a(req: ApiRequest): ApiResponse {
  const l = links(req.baseUrl);
  return json(200, {
    ok: true,
    protocol: 'A2A',
    protocolVersion: '0.3.0',
    transport: 'JSONRPC',
    url: l.a2a,
    agent_card: l.agent_card_a2a,
    agent_card_legacy: l.agent_card,
    jwks: l.jwks,
    methods: ['message/send', 'tasks/get', 'tasks/cancel'],
    rate_limit: a2aLimit
      ? `${a2aLimit.requests} requests per rolling ${a2aLimit.perSeconds} s per caller (source address), counted per function instance`
      : 'none',
  });
}

/** POST /api/a2a: JSON-RPC 2.0 through the A2A SDK's transport handler. */
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
  const check = checkA2aRequest(body);
  if (!check.ok) return rpcError(200, id, check.code, check.message, check.data);
  forceBlocking(body);

  const tasks = guardTaskStore(ports.tasks);
  const handler = new JsonRpcTransportHandler(
    new DefaultRequestHandler(await signedCard(ports, req.baseUrl), tasks, executor(ports, tasks, req.baseUrl, req.sourceIp)),
  );
  const result = await handler.handle(body);
  // Whatever the SDK made of a store fault (task not found, or the store's error text), the answer is this.
  if (tasks.failed) return rpcError(503, id, RPC_CODES.internalError, STORE_FAULT, { retry: true });
  if (Symbol.asyncIterator in Object(result)) {
    return rpcError(200, id, -32004, 'Streaming is not supported by this agent (capabilities.streaming is false).');
  }
  return json(200, result);
}
