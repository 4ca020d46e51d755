/**
 * Where the Stripe keys come from: the Secrets Manager secret the stack creates (AWS), or the
 * environment (the local run). Card checkout is configured when both keys are present.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SECRET_SETTINGS } from '../../contract/settings';
import type { StripeKeys } from './stripe-card-processor';

const keysOf = (fields: Record<string, unknown>): StripeKeys | undefined => {
  const secretKey = fields[SECRET_SETTINGS.stripeSecretKey.env];
  const webhookSecret = fields[SECRET_SETTINGS.stripeWebhookSecret.env];
  return typeof secretKey === 'string' && secretKey.trim() !== '' && typeof webhookSecret === 'string' && webhookSecret.trim() !== ''
    ? { secretKey: secretKey.trim(), webhookSecret: webhookSecret.trim() }
    : undefined;
};

/** The keys in the environment (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET), or undefined. */
export const envStripeKeys = (env: NodeJS.ProcessEnv): (() => Promise<StripeKeys | undefined>) => {
  const keys = keysOf(env);
  return () => Promise.resolve(keys);
};

/** The keys in a Secrets Manager secret: a JSON object with the same two field names; undefined while they are blank. */
export function secretsManagerStripeKeys(arn: string): () => Promise<StripeKeys | undefined> {
  return async () => {
    const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
    let fields: unknown;
    try {
      fields = JSON.parse(out.SecretString ?? '{}');
    } catch {
      throw new Error('the Stripe secret is not a JSON object');
    }
    return fields !== null && typeof fields === 'object' ? keysOf(fields as Record<string, unknown>) : undefined;
  };
}
