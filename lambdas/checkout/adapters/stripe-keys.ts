/**
 * Where the Stripe keys come from: the Secrets Manager secret the stack creates (AWS), or the
 * environment (the local run). Card checkout is configured when both keys are present.
 */
import { SECRET_SETTINGS } from '../../contract/settings';
import { secretsManagerJson } from '../../platform/adapters/secret-json';
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
    const fields = await secretsManagerJson(arn, 'the Stripe secret');
    return fields !== null && typeof fields === 'object' ? keysOf(fields as Record<string, unknown>) : undefined;
  };
}
