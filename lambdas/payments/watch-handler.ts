/**
 * Lambda entry of the facilitator's scheduled watch (EventBridge Scheduler in AWS, every few
 * minutes): the relayer's ETH and the settlements stuck in flight (facilitator/watch.ts). The
 * facilitator runs inside payments' functions, so its watch is one of payments' entries.
 */
import { watchTask } from '../facilitator';

export const handler = watchTask;
