import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readConfigFromEnv } from '#shared/config';
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

export interface PaymentsPorts extends SettlePorts {
  /** Configuration problems; while any exists, payments answer 503 PAYMENTS_DISABLED. */
  configProblems: string[];
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
  const { config, problems } = readConfigFromEnv(env);
  const secret = await licenseSecret(env);
  const stateMachine = env['CONFIRMATION_STATE_MACHINE_ARN'];
  const ports: PaymentsPorts = {
    config,
    configProblems: problems,
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
