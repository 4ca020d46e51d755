import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { A2A_TASKS_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';

/** Tasks are kept 30 days (TTL); a read also ignores an expired one, as DynamoDB deletes late (and the local run never). */
export const TASK_TTL_SECONDS = 30 * 24 * 3600;
/** DynamoDB refuses items over 400 KB; a task is refused here first, with a message that names no DynamoDB detail. */
export const MAX_TASK_BYTES = 350 * 1024;

/**
 * Serialises a task in A2A 1.0's JSON form (the SDK's `Task.toJSON`: enums as names, parts as
 * `{text}`/`{data}`), or says plainly why not: JSON.stringify throws on a value nested too deep
 * (RangeError) or a cycle.
 */
function serialise(task: Task): string {
  let text: string;
  try {
    text = JSON.stringify(Task.toJSON(task));
  } catch {
    throw new Error(`Task ${task.id} cannot be serialised.`);
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_TASK_BYTES) throw new Error(`Task ${task.id} is larger than ${MAX_TASK_BYTES} bytes.`);
  return text;
}

/**
 * Who a task is kept for: the SDK's user of the request (`ServerCallContext.user`, set by
 * `postA2a` from the caller), as the SDK's own stores key a task by it. Undefined when the
 * request names nobody.
 */
const callerOf = (context: ServerCallContext | undefined): string | undefined => context?.user?.userName || undefined;

/**
 * The A2A SDK's TaskStore on DynamoDB: one item per task, written whole each time it changes, with
 * the caller that wrote it. A task is its creator's: a read by anyone else finds nothing, the same
 * answer as for an id no task has, so a task id is a name and not a credential (the SDK then says
 * TaskNotFoundError for GetTask, CancelTask and a SendMessage naming it). An item without a caller
 * (written before tasks had one) is nobody's. None is listed: a caller's tasks would need an index
 * by caller, and ListTasks is not offered.
 */
export function dynamoTaskStore(client: DynamoDBClient, now: () => Date, table = tableName(A2A_TASKS_TABLE)): TaskStore {
  return {
    async save(task: Task, context: ServerCallContext) {
      const text = serialise(task);
      const caller = callerOf(context);
      // A task nobody could read back is a fault of the request's wiring, never a task everyone shares.
      if (!caller) throw new Error(`Task ${task.id} has no caller to be kept for.`);
      const expiresAt = Math.floor(now().getTime() / 1000) + TASK_TTL_SECONDS;
      const item = marshall({ id: task.id, caller, task: text, expiresAt });
      await client.send(new PutItemCommand({ TableName: table, Item: item }));
    },
    async load(taskId: string, context: ServerCallContext) {
      const caller = callerOf(context);
      if (!caller) return undefined;
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ id: taskId }), ConsistentRead: true }));
      if (!out.Item) return undefined;
      const item = unmarshall(out.Item) as { caller?: string; task: string; expiresAt: number };
      if (item.caller !== caller) return undefined;
      if (item.expiresAt < now().getTime() / 1000) return undefined;
      const stored = JSON.parse(item.task) as Record<string, unknown>;
      // A task written by the v0.3 agent (`kind: "task"`, states in lower case) has no 1.0 reading: it is not found.
      if (stored['kind'] === 'task') return undefined;
      return Task.fromJSON(stored);
    },
    async list() {
      throw new UnsupportedOperationError('Tasks are not listed: a task is read by its id (GetTask), by the caller that created it.');
    },
  };
}
