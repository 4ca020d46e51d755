import type { TaskStore } from '@a2a-js/sdk/server';
import { dynamoClient } from '#shared/adapters/dynamo-client';
import { paymentsPortsFromEnv, type PaymentsPorts } from '../payments/ports';
import { kmsCardSigner, localCardSigner, type CardSigner } from './card-signer';
import { dynamoTaskStore } from './dynamo-task-store';
import { slidingWindowLimiter, type RateLimiter } from './rate-limiter';

/** The agents domain works through the same ports as payments, plus its own. */
export interface AgentsPorts extends PaymentsPorts {
  tasks: TaskStore;
  cardSigner: CardSigner;
  /** One per function instance ("per isolate"). */
  a2aLimiter: RateLimiter;
}

export async function agentsPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<AgentsPorts> {
  const payments = await paymentsPortsFromEnv(env);
  const kmsKey = env['AGENT_CARD_KMS_KEY_ID'];
  return {
    ...payments,
    tasks: dynamoTaskStore(dynamoClient(), payments.now),
    cardSigner: kmsKey ? kmsCardSigner(kmsKey) : localCardSigner(env['AGENT_CARD_KEY_FILE']),
    a2aLimiter: slidingWindowLimiter(120, 60_000),
  };
}
