import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readConfigFromEnv, type ConfigReading } from '#shared/config';
import { dynamoTableProbe } from '#shared/adapters/table-probe';
import { viemChainIdProbe } from '#shared/adapters/chain-id-probe';
import { syntheticContext, syntheticEvent } from '#shared/synthetic-event';
import { TABLES } from '#shared/tables';
import type { ReadinessPorts } from './readiness';
import { loadCatalogFiles } from '#shared/adapters/catalog-files';
import { dynamoClient } from '#shared/adapters/dynamo-client';
import { logger } from '#shared/logger';
import type { ConfirmationScheduler } from './confirmations';
import { dynamoLedger } from './dynamo-ledger';
import { joseLicenses, type Licenses } from './licenses';
import { localConfirmations } from './local-confirmations';
import { filePackStore, type PackStore } from './pack-store';
import type { SettlePorts } from './settle';
import { sfnConfirmations } from './sfn-confirmations';
import { viemChainReader } from './viem-chain-reader';

export interface PaymentsPorts extends SettlePorts, Omit<ReadinessPorts, 'config' | 'catalog' | 'packs'> {
  /** The configuration as read, with its problems: readiness reports them, and while any exists payments answer 503 PAYMENTS_DISABLED. */
  configReading: ConfigReading;
  packs: PackStore;
  licenses: Licenses;
}

/**
 * The license signing key: Secrets Manager in AWS (LICENSE_SECRET_ARN), a file created once
 * locally (LICENSE_SECRET_FILE, under .data/), or a key for this process only.
 */
async function licenseSecret(env: NodeJS.ProcessEnv): Promise<Uint8Array> {
  const arn = env['LICENSE_SECRET_ARN'];
  if (arn) {
    const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
    if (!out.SecretString) throw new Error('license secret is empty');
    return Buffer.from(out.SecretString, 'utf8');
  }
  const file = env['LICENSE_SECRET_FILE'];
  if (file) {
    try {
      return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    } catch {
      const secret = randomBytes(48);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
      return secret;
    }
  }
  logger.warn('no LICENSE_SECRET_ARN or LICENSE_SECRET_FILE: license tokens are valid for this process only');
  return randomBytes(48);
}

export async function paymentsPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<PaymentsPorts> {
  const reading = readConfigFromEnv(env);
  const { config } = reading;
  const secret = await licenseSecret(env);
  const stateMachine = env['CONFIRMATION_STATE_MACHINE_ARN'];
  const ports: PaymentsPorts = {
    config,
    configReading: reading,
    probeTables: dynamoTableProbe(dynamoClient(), TABLES),
    probeChainIds: viemChainIdProbe(),
    // Through the exported Lambda handler itself, imported late because it imports this module.
    liveChallenge: async (baseUrl) => {
      const { handler } = await import('./handler');
      const canary = ports.catalog.pricing.canary;
      const res = await handler(syntheticEvent('GET /api/pay', `skill=${canary}`, baseUrl), syntheticContext('readiness'));
      return { status: res.statusCode ?? 0, body: typeof res.body === 'string' ? res.body : '' };
    },
    catalog: loadCatalogFiles(),
    chain: viemChainReader(config.rpcUrls),
    ledger: dynamoLedger(dynamoClient()),
    packs: filePackStore(),
    licenses: joseLicenses(secret),
    // In AWS a Step Functions execution re-verifies; locally the same task runs in-process.
    confirmations: stateMachine ? sfnConfirmations(stateMachine) : localConfirmations(() => ports),
    now: () => new Date(),
  };
  return ports;
}
