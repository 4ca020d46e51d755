/**
 * Builds the access ports from the environment: the only file of the domain that names
 * adapters. Settlement, the ledger and the nonces are payments' ports, built through its face.
 */
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { paymentsPortsFromEnv } from '../payments';
import { dynamoMandates } from './adapters/dynamo-mandates';
import { dynamoMeters } from './adapters/dynamo-meters';
import { dynamoSubscriptions } from './adapters/dynamo-subscriptions';
import { viemIdentityRegistry } from './adapters/viem-identity-registry';
import { viemTypedSignatures } from './adapters/viem-typed-signatures';
import type { AccessPorts, IdentityRegistry } from './ports';

export async function accessPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<AccessPorts> {
  const payments = await paymentsPortsFromEnv(env);
  const { config } = payments;
  const registry = config.identityRegistry;
  const identity: IdentityRegistry = registry
    ? viemIdentityRegistry(payments.rpcUrls, registry)
    : { address: undefined, lookup: async () => ({ kind: 'unavailable', error: 'no Identity Registry is configured' }) };
  return {
    payments,
    // The same catalog, ledger and nonce store settlement uses: one of each per process.
    catalog: payments.catalog,
    ledger: payments.ledger,
    nonces: payments.nonces,
    mandates: dynamoMandates(dynamoClient()),
    subscriptions: dynamoSubscriptions(dynamoClient()),
    meters: dynamoMeters(dynamoClient()),
    signatures: viemTypedSignatures(payments.rpcUrls),
    identity,
    now: () => new Date(),
  };
}
