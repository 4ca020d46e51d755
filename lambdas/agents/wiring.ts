/** Builds the agents ports from the environment: the access ports (through its public face) plus the card signer and tasks. */
import { accessPortsFromEnv } from '../access';
import { INFRA_ENV } from '../contract/env';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { dynamoTaskStore } from './adapters/dynamo-task-store';
import { keyFileCardSigner } from './adapters/key-file-card-signer';
import { kmsCardSigner } from './adapters/kms-card-signer';
import type { AgentsPorts } from './ports';

/** The agents ports of a deployment (or the local stack), from its environment. */
export async function agentsPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<AgentsPorts> {
  const access = await accessPortsFromEnv(env);
  // The access ports carry the payments ports they settle through: reused, so they are built once.
  const payments = access.payments;
  const kmsKey = env[INFRA_ENV.agentCardKmsKeyId];
  return {
    ...payments,
    access,
    tasks: dynamoTaskStore(dynamoClient(), payments.now),
    cardSigner: kmsKey ? kmsCardSigner(kmsKey) : keyFileCardSigner(env[INFRA_ENV.agentCardKeyFile]),
  };
}
