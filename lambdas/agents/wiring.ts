/** Builds the agents ports from the environment: the payments ports (through its public face) plus the card signer and tasks. */
import { paymentsPortsFromEnv } from '../payments';
import { INFRA_ENV } from '../contract/env';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { dynamoTaskStore } from './adapters/dynamo-task-store';
import { keyFileCardSigner } from './adapters/key-file-card-signer';
import { kmsCardSigner } from './adapters/kms-card-signer';
import type { AgentsPorts } from './ports';

export function agentsPortsFromEnv(env: NodeJS.ProcessEnv = process.env): AgentsPorts {
  const payments = paymentsPortsFromEnv(env);
  const kmsKey = env[INFRA_ENV.agentCardKmsKeyId];
  return {
    ...payments,
    tasks: dynamoTaskStore(dynamoClient(), payments.now),
    cardSigner: kmsKey ? kmsCardSigner(kmsKey) : keyFileCardSigner(env[INFRA_ENV.agentCardKeyFile]),
  };
}
