import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { executionName } from '../core/execution-name';
import type { ConfirmationScheduler } from '../ports';
import { traced } from '../../platform/tracer';

/** Starts the confirmation state machine once per job: the execution name is derived from the job. */
export function sfnConfirmations(stateMachineArn: string, client = traced(new SFNClient({}))): ConfirmationScheduler {
  return {
    async schedule(job) {
      try {
        await client.send(new StartExecutionCommand({ stateMachineArn, name: executionName(job), input: JSON.stringify(job) }));
        return 'started';
      } catch (e) {
        if (e instanceof ExecutionAlreadyExists) return 'already_running';
        throw e;
      }
    },
  };
}
