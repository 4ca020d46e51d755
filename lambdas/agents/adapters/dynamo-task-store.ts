import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { TaskStore } from '@a2a-js/sdk/server';
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
 * The A2A SDK's TaskStore on DynamoDB: one item per task, written whole each time it changes.
 * Tasks are anonymous (their id is the caller's only handle on them), so none is listed: ListTasks
 * would hand every caller everyone's tasks, and it would be a table scan.
 */
export function dynamoTaskStore(client: DynamoDBClient, now: () => Date, table = tableName(A2A_TASKS_TABLE)): TaskStore {
  return {
    async save(task: Task) {
      const expiresAt = Math.floor(now().getTime() / 1000) + TASK_TTL_SECONDS;
      const item = marshall({ id: task.id, task: serialise(task), expiresAt });
      await client.send(new PutItemCommand({ TableName: table, Item: item }));
    },
    async load(taskId: string) {
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ id: taskId }), ConsistentRead: true }));
      if (!out.Item) return undefined;
      const item = unmarshall(out.Item) as { task: string; expiresAt: number };
      if (item.expiresAt < now().getTime() / 1000) return undefined;
      const stored = JSON.parse(item.task) as Record<string, unknown>;
      // A task written by the v0.3 agent (`kind: "task"`, states in lower case) has no 1.0 reading: it is not found.
      if (stored['kind'] === 'task') return undefined;
      return Task.fromJSON(stored);
    },
    async list() {
      throw new UnsupportedOperationError('Tasks are not listed: a task is read by its id (GetTask), which only its caller holds.');
    },
  };
}
