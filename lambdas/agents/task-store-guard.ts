/**
 * The task store as the A2A SDK sees it during one request. The SDK saves tasks from an event
 * loop whose error path it does not await: when `save` rejects during a blocking message/send,
 * `DefaultRequestHandler._processEvents` catches it and calls the async `_handleProcessingError`
 * without awaiting it, which rethrows, so the rejection is unhandled (the local server reported it;
 * in Lambda it is a 5xx and a crashed instance). Its other paths turn a store error's text into
 * the JSON-RPC answer (DynamoDB's message for a bad key). So this store never rejects: a failure
 * is logged, remembered, and `postA2a` answers it with one fixed message. Listing is the store's
 * own answer (it refuses, see the adapter), passed through as the SDK's error. Whose task is whose
 * is the store's too: every call passes the request's context, its caller included.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { logger } from '../platform/logger';
import { isPlausibleTaskId } from './a2a-request';

/** A {@link TaskStore} whose operations never reject; `failed` says whether one went wrong. */
export interface GuardedTaskStore extends TaskStore {
  /** True once a save or a load has failed in this request: the answer must say so, not what the SDK made of it. */
  readonly failed: boolean;
}

/** Wraps the task store for one request (see the file comment). */
export function guardTaskStore(inner: TaskStore): GuardedTaskStore {
  let failed = false;
  const fail = (what: string, taskId: string, error: unknown): void => {
    failed = true;
    logger.error(`a2a task ${what} failed`, { task_id: taskId.slice(0, 128), error: error as Error });
  };
  return {
    get failed() {
      return failed;
    },
    async save(task: Task, context: ServerCallContext): Promise<void> {
      try {
        await inner.save(task, context);
      } catch (e) {
        fail('save', task.id, e);
      }
    },
    async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
      // The SDK only ever issues UUIDs: any other id cannot name a task, so the store is not asked.
      if (!isPlausibleTaskId(taskId)) return undefined;
      try {
        return await inner.load(taskId, context);
      } catch (e) {
        fail('load', taskId, e);
        return undefined;
      }
    },
    list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
      return inner.list(params, context);
    },
  };
}
