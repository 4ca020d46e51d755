/**
 * Checks an A2A JSON-RPC request before the A2A SDK sees it. The SDK trusts its input: it reads
 * every `referenceTaskIds` entry from the task store one after another (1000 ids, 1000 reads and
 * 1000 log lines), stores the whole message in the task, and passes task ids to the store as
 * they come (DynamoDB then refuses a 5000-character key with its own error text). So every list
 * is capped, every part sized, and a task id this agent could not have issued is not looked up.
 */
import * as z from 'zod';
import { RPC_CODES } from './json-rpc';

/** The caps on an A2A request (a body is already at most 64 KiB and 32 levels deep). */
export const A2A_LIMITS = {
  /** Parts of one message. */
  maxParts: 20,
  /** Characters of one text part (the search reads the first 200 of all of them). */
  maxTextChars: 4000,
  /** Bytes of one data or file part, serialised as JSON. */
  maxPartBytes: 8 * 1024,
  /** Entries of `referenceTaskIds`: each is a task-store read. */
  maxReferenceTaskIds: 10,
  /** Characters of a task id; the SDK issues UUIDs (36). */
  maxTaskIdChars: 128,
  /** Characters of a messageId or contextId. */
  maxIdChars: 128,
  /** Entries of `extensions` and of `configuration.acceptedOutputModes`. */
  maxListEntries: 10,
  /** `historyLength` of tasks/get and message/send. */
  maxHistoryLength: 100,
} as const;

const TASK_ID = new RegExp(`^[A-Za-z0-9._:-]{1,${A2A_LIMITS.maxTaskIdChars}}$`);
const TASK_ID_RULE = `1-${A2A_LIMITS.maxTaskIdChars} characters (A-Z a-z 0-9 . _ : -)`;

/** Whether a value could be a task id this agent issued (the SDK issues UUIDs); anything else is not looked up. */
export function isPlausibleTaskId(id: unknown): id is string {
  return typeof id === 'string' && TASK_ID.test(id);
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
const partSized = <T>(part: T): boolean => jsonBytes(part) <= A2A_LIMITS.maxPartBytes;
const sizeMessage = `at most ${A2A_LIMITS.maxPartBytes} bytes as JSON`;

const TextPart = z.looseObject({
  kind: z.literal('text'),
  text: z.string().max(A2A_LIMITS.maxTextChars, `at most ${A2A_LIMITS.maxTextChars} characters`),
});
const DataPart = z.looseObject({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()) }).refine(partSized, sizeMessage);
const FilePart = z.looseObject({ kind: z.literal('file'), file: z.looseObject({}) }).refine(partSized, sizeMessage);
const Part = z.discriminatedUnion('kind', [TextPart, DataPart, FilePart]);

const shortId = z.string().min(1).max(A2A_LIMITS.maxIdChars, `at most ${A2A_LIMITS.maxIdChars} characters`);
const historyLength = z.number().int().min(0).max(A2A_LIMITS.maxHistoryLength);
const shortList = z
  .array(z.string().max(A2A_LIMITS.maxIdChars))
  .max(A2A_LIMITS.maxListEntries, `at most ${A2A_LIMITS.maxListEntries} entries`);

const MessageSendParams = z.looseObject({
  message: z.looseObject({
    kind: z.literal('message').optional(),
    messageId: shortId,
    role: z.enum(['user', 'agent']).optional(),
    parts: z.array(Part).min(1).max(A2A_LIMITS.maxParts, `at most ${A2A_LIMITS.maxParts} parts`),
    // A string here; whether it names a task is answered with -32001 below, as for tasks/get.
    taskId: z.string().optional(),
    contextId: shortId.optional(),
    referenceTaskIds: z
      .array(z.string().regex(TASK_ID, `a task id is ${TASK_ID_RULE}`))
      .max(A2A_LIMITS.maxReferenceTaskIds, `at most ${A2A_LIMITS.maxReferenceTaskIds} task ids`)
      .optional(),
    extensions: shortList.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  configuration: z
    .looseObject({ acceptedOutputModes: shortList.optional(), blocking: z.boolean().optional(), historyLength: historyLength.optional() })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
const TaskQueryParams = z.looseObject({ id: z.string(), historyLength: historyLength.optional() });
const TaskIdParams = z.looseObject({ id: z.string() });

/** What the check decided: go on to the SDK, or answer this JSON-RPC error (HTTP 200, as the SDK answers its own). */
export type A2aCheck = { ok: true } | { ok: false; code: number; message: string; data?: Record<string, unknown> };

const OK: A2aCheck = { ok: true };

function invalidParams(error: z.ZodError): A2aCheck {
  const issue = error.issues[0];
  const field = ['params', ...(issue?.path ?? []).map(String)].join('.');
  return {
    ok: false,
    code: RPC_CODES.invalidParams,
    message: `Invalid params: ${field}: ${issue?.message ?? 'invalid'}.`,
    data: { field },
  };
}

const taskNotFound: A2aCheck = {
  ok: false,
  code: RPC_CODES.taskNotFound,
  message: `Task not found: task ids are ${TASK_ID_RULE}.`,
};

/**
 * Checks the params of the methods that reach the task store (message/send, tasks/get,
 * tasks/cancel). Anything else (an unknown method, a malformed envelope, streaming) is left
 * to the SDK, which answers it without touching the store.
 */
export function checkA2aRequest(body: unknown): A2aCheck {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return OK;
  const { method, params } = body as { method?: unknown; params?: unknown };
  const schema =
    method === 'message/send'
      ? MessageSendParams
      : method === 'tasks/get'
        ? TaskQueryParams
        : method === 'tasks/cancel'
          ? TaskIdParams
          : undefined;
  if (!schema) return OK;
  const parsed = schema.safeParse(params);
  if (!parsed.success) return invalidParams(parsed.error);
  const value = parsed.data as { id?: string; message?: { taskId?: string } };
  const taskId = method === 'message/send' ? value.message?.taskId : value.id;
  if (taskId !== undefined && !isPlausibleTaskId(taskId)) return taskNotFound;
  return OK;
}

/**
 * Makes a message/send blocking. A non-blocking send leaves the SDK's event loop running after
 * the answer, unawaited (and frozen with the Lambda); this agent's tasks are final within the
 * request anyway. Call it only on a request {@link checkA2aRequest} accepted.
 */
export function forceBlocking(body: unknown): void {
  if (body === null || typeof body !== 'object') return;
  const request = body as { method?: unknown; params?: { configuration?: { blocking?: boolean } } };
  if (request.method !== 'message/send' || !request.params) return;
  request.params.configuration = { ...request.params.configuration, blocking: true };
}
