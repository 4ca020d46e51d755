/** Builds the agents ports from the environment: the access ports (through its public face) plus tasks; the card is signed with payments' service key. */
import { accessPortsFromEnv } from '../access';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { dynamoTaskStore } from './adapters/dynamo-task-store';
import type { AgentsPorts } from './ports';

/** The agents ports of a deployment (or the local stack), from its environment. */
export async function agentsPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<AgentsPorts> {
  const access = await accessPortsFromEnv(env);
  // The access ports carry the payments ports they settle through: reused, so they are built once.
  const payments = access.payments;
  return {
    ...payments,
    access,
    tasks: dynamoTaskStore(dynamoClient(), payments.now),
  };
}
