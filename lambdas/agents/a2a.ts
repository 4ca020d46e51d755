/**
 * A2A (v0.3.0, JSON-RPC) at /api/a2a through the A2A SDK's request handler, with tasks in
 * DynamoDB. message/send: a text part describing a need → a completed task whose artifact
 * ranks skills with prices and the next HTTP calls; a data part {"skill": id} → the skill's
 * free evaluation and its challenge. Limited to 120 requests per rolling minute per instance.
 */
import { randomUUID } from 'node:crypto';
import type { Message, Task, TaskState } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { rankSkills } from '../catalog';
import { links } from '../contract/links';
import { json, type ApiRequest, type ApiResponse } from '../platform/http';
import { espCycle } from '../discovery';
import { signedCard } from './card-routes';
import type { AgentsPorts } from './ports';

/** JSON-RPC code for "rate limited" (the implementation-defined server-error range). */
export const RATE_LIMITED_CODE = -32029;

const agentMessage = (text: string, taskId: string, contextId: string): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'agent',
  parts: [{ kind: 'text', text }],
  taskId,
  contextId,
});

function executor(ports: AgentsPorts, baseUrl: string): AgentExecutor {
  const finish = (bus: ExecutionEventBus, ctx: RequestContext, state: TaskState, text: string): void => {
    bus.publish({
      kind: 'status-update',
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { state, message: agentMessage(text, ctx.taskId, ctx.contextId), timestamp: ports.now().toISOString() },
      final: true,
    });
    bus.finished();
  };
  return {
    async execute(ctx, bus) {
      const task: Task = {
        kind: 'task',
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: 'working', timestamp: ports.now().toISOString() },
        history: [ctx.userMessage],
      };
      bus.publish(task);
      const dataSkill = ctx.userMessage.parts.find(
        (p) => p.kind === 'data' && typeof (p.data as Record<string, unknown>)['skill'] === 'string',
      );
      if (dataSkill && dataSkill.kind === 'data') {
        const id = String(dataSkill.data['skill']);
        const entry = ports.catalog.get(id);
        if (!entry) return finish(bus, ctx, 'rejected', `Unknown skill "${id}". Send a text part describing your need to find skill ids.`);
        const cycle = await espCycle(entry, ports, baseUrl);
        const evaluation = ports.catalog.evaluation(entry.id)!;
        bus.publish({
          kind: 'artifact-update',
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: {
            artifactId: randomUUID(),
            name: 'evaluation',
            parts: [{ kind: 'data', data: { ...cycle, outline_document: evaluation.outline, sample_markdown: evaluation.sample } }],
          },
        });
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
          'Send a text part describing what you need, or a data part {"skill":"<id>"} to evaluate one skill.',
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
      bus.publish({
        kind: 'artifact-update',
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { artifactId: randomUUID(), name: 'ranked-skills', parts: [{ kind: 'data', data: { query: text, results } }] },
      });
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
    },
    async cancelTask(taskId, bus) {
      const task = await ports.tasks.load(taskId);
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
    rate_limit: '120 requests per rolling 60 s per instance',
  });
}

const rpcError = (
  status: number,
  id: unknown,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
): ApiResponse =>
  json(status, { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data !== undefined ? { data } : {}) } }, headers);

/** POST /api/a2a: JSON-RPC 2.0 through the A2A SDK's transport handler. */
export async function postA2a(req: ApiRequest, ports: AgentsPorts): Promise<ApiResponse> {
  const wait = ports.a2aLimiter.take(ports.now().getTime());
  if (wait !== undefined)
    return rpcError(
      429,
      null,
      RATE_LIMITED_CODE,
      'Rate limited: 120 requests per 60 s per instance.',
      { 'retry-after': String(wait) },
      { retry_after_seconds: wait },
    );
  let body: unknown;
  try {
    body = JSON.parse(req.body ?? '');
  } catch {
    return rpcError(200, null, -32700, 'Parse error: the body is not valid JSON.');
  }
  const handler = new JsonRpcTransportHandler(
    new DefaultRequestHandler(await signedCard(ports, req.baseUrl), ports.tasks, executor(ports, req.baseUrl)),
  );
  const result = await handler.handle(body);
  if (Symbol.asyncIterator in Object(result)) {
    return rpcError(
      200,
      (body as { id?: unknown }).id,
      -32004,
      'Streaming is not supported by this agent (capabilities.streaming is false).',
    );
  }
  return json(200, result);
}
