/**
 * Checks an A2A JSON-RPC request before the A2A SDK sees it. The SDK trusts its input: it reads
 * every `referenceTaskIds` entry from the task store one after another (1000 ids, 1000 reads and
 * 1000 log lines), stores the whole message in the task, and passes task ids to the store as
 * they come (DynamoDB then refuses a 5000-character key with its own error text). So every list
 * is capped, every part sized, and a task id this agent could not have issued is not looked up.
 * Both versions the endpoint speaks are checked: A2A 1.0 (SendMessage, GetTask, CancelTask,
 * SubscribeToTask; parts `{text}`, `{data}`, `{url}`, `{raw}`) and v0.3 (message/send,
 * tasks/get, tasks/cancel; parts with `kind`), each with its own method names, so one body can
 * only be read one way.
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

const referenceTaskIds = z
  .array(z.string().regex(TASK_ID, `a task id is ${TASK_ID_RULE}`))
  .max(A2A_LIMITS.maxReferenceTaskIds, `at most ${A2A_LIMITS.maxReferenceTaskIds} task ids`);
const parts = <T extends z.ZodType>(part: T) => z.array(part).min(1).max(A2A_LIMITS.maxParts, `at most ${A2A_LIMITS.maxParts} parts`);
const metadata = z.record(z.string(), z.unknown());

const MessageSendParams = z.looseObject({
  message: z.looseObject({
    kind: z.literal('message').optional(),
    messageId: shortId,
    role: z.enum(['user', 'agent']).optional(),
    parts: parts(Part),
    // A string here; whether it names a task is answered with -32001 below, as for tasks/get.
    taskId: z.string().optional(),
    contextId: shortId.optional(),
    referenceTaskIds: referenceTaskIds.optional(),
    extensions: shortList.optional(),
    metadata: metadata.optional(),
  }),
  configuration: z
    .looseObject({ acceptedOutputModes: shortList.optional(), blocking: z.boolean().optional(), historyLength: historyLength.optional() })
    .optional(),
  metadata: metadata.optional(),
});
const TaskQueryParams = z.looseObject({ id: z.string(), historyLength: historyLength.optional() });
const TaskIdParams = z.looseObject({ id: z.string() });

/** A 1.0 part: its content is one of `text`, `data`, `url`, `raw` (base64); a text is capped in characters, anything else in bytes. */
const PartV1 = z
  .looseObject({
    text: z.string().max(A2A_LIMITS.maxTextChars, `at most ${A2A_LIMITS.maxTextChars} characters`).optional(),
    metadata: metadata.optional(),
  })
  .refine((p) => typeof p.text === 'string' || partSized(p), sizeMessage);
const tenant = z.string().max(A2A_LIMITS.maxIdChars, `at most ${A2A_LIMITS.maxIdChars} characters`);

const SendMessageRequestV1 = z.looseObject({
  tenant: tenant.optional(),
  message: z.looseObject({
    messageId: shortId,
    role: z.enum(['ROLE_USER', 'ROLE_AGENT']).optional(),
    parts: parts(PartV1),
    taskId: z.string().optional(),
    contextId: shortId.optional(),
    referenceTaskIds: referenceTaskIds.optional(),
    extensions: shortList.optional(),
    metadata: metadata.optional(),
  }),
  configuration: z
    .looseObject({
      acceptedOutputModes: shortList.optional(),
      returnImmediately: z.boolean().optional(),
      historyLength: historyLength.optional(),
    })
    .optional(),
  metadata: metadata.optional(),
});
const GetTaskRequestV1 = z.looseObject({ tenant: tenant.optional(), id: z.string(), historyLength: historyLength.optional() });
const TaskIdRequestV1 = z.looseObject({ tenant: tenant.optional(), id: z.string() });

type Checked = Record<string, { schema: z.ZodType; taskIdIn: 'message' | 'id' }>;
/** The methods that reach the task store, per version: each one's params schema, and whether its task id is `message.taskId` or `id`. */
const CHECKED: { legacy: Checked; v1: Checked } = {
  legacy: {
    'message/send': { schema: MessageSendParams, taskIdIn: 'message' },
    'tasks/get': { schema: TaskQueryParams, taskIdIn: 'id' },
    'tasks/cancel': { schema: TaskIdParams, taskIdIn: 'id' },
  },
  v1: {
    SendMessage: { schema: SendMessageRequestV1, taskIdIn: 'message' },
    GetTask: { schema: GetTaskRequestV1, taskIdIn: 'id' },
    CancelTask: { schema: TaskIdRequestV1, taskIdIn: 'id' },
    SubscribeToTask: { schema: TaskIdRequestV1, taskIdIn: 'id' },
  },
};

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
 * Checks the params of the methods that reach the task store in the version the request speaks
 * (SendMessage, GetTask, CancelTask, SubscribeToTask; v0.3's message/send, tasks/get,
 * tasks/cancel). Anything else (an unknown method, another version's method, a malformed
 * envelope, streaming) is left to the SDK, which answers it without touching the store.
 */
export function checkA2aRequest(body: unknown, legacy: boolean): A2aCheck {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return OK;
  const { method, params } = body as { method?: unknown; params?: unknown };
  const methods = legacy ? CHECKED.legacy : CHECKED.v1;
  const checked = typeof method === 'string' && Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!checked) return OK;
  const parsed = checked.schema.safeParse(params);
  if (!parsed.success) return invalidParams(parsed.error);
  const value = parsed.data as { id?: string; message?: { taskId?: string } };
  const taskId = checked.taskIdIn === 'message' ? value.message?.taskId : value.id;
  if (taskId !== undefined && !isPlausibleTaskId(taskId)) return taskNotFound;
  return OK;
}

/**
 * Makes a send blocking (v0.3's `blocking: true`, 1.0's `returnImmediately: false`). A
 * non-blocking send leaves the SDK's event loop running after the answer, unawaited (and frozen
 * with the Lambda); this agent's tasks are final within the request anyway. Call it only on a
 * request {@link checkA2aRequest} accepted.
 */
export function forceBlocking(body: unknown, legacy: boolean): void {
  if (body === null || typeof body !== 'object') return;
  const request = body as { method?: unknown; params?: { configuration?: Record<string, unknown> } };
  if (!request.params) return;
  if (legacy && request.method === 'message/send') request.params.configuration = { ...request.params.configuration, blocking: true };
  if (!legacy && request.method === 'SendMessage')
    request.params.configuration = { ...request.params.configuration, returnImmediately: false };
}
