/**
 * Builds the checkout ports from the environment: the only file of the domain that names
 * adapters. Payments' ports are built through payments' face, so card sales and licenses are
 * the ones every unlock path checks.
 */
import { randomBytes } from 'node:crypto';
import { INFRA_ENV } from '../contract/env';
import { paymentsPortsFromEnv } from '../payments';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { cacheFor } from '../platform/memo';
import { dynamoCheckoutSessions, dynamoHandledEvents, dynamoIdempotencyKeys } from './adapters/dynamo-checkout';
import { stripeCardProcessor, type StripeKeys } from './adapters/stripe-card-processor';
import { envStripeKeys, secretsManagerStripeKeys } from './adapters/stripe-keys';
import { SECRET_PREFIX } from './core/session-secret';
import type { CardProcessor, CheckoutPorts } from './ports';

/** While card checkout is not configured, the keys are looked for again at most this often (an operator may set them after deploy). */
const UNCONFIGURED_RECHECK_MS = 60_000;

/**
 * Stripe once its keys are found: read once per cold start when they are there, and kept for
 * the life of the instance; looked for again every minute while they are not.
 */
function cardProcessor(load: () => Promise<StripeKeys | undefined>, apiBase: string | undefined): () => Promise<CardProcessor | undefined> {
  let processor: CardProcessor | undefined;
  const lookup = cacheFor(UNCONFIGURED_RECHECK_MS, load);
  return async () => {
    if (processor) return processor;
    const keys = await lookup();
    if (keys) processor = stripeCardProcessor(keys, apiBase);
    return processor;
  };
}

export async function checkoutPortsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<CheckoutPorts> {
  const payments = await paymentsPortsFromEnv(env);
  const client = dynamoClient();
  const secretArn = env[INFRA_ENV.stripeSecretArn];
  return {
    payments,
    sessions: dynamoCheckoutSessions(client),
    idempotency: dynamoIdempotencyKeys(client),
    events: dynamoHandledEvents(client),
    card: cardProcessor(secretArn ? secretsManagerStripeKeys(secretArn) : envStripeKeys(env), payments.config.stripeApiBase),
    now: () => new Date(),
    // 144 random bits: a session id is the buyer's handle on its session, never guessable.
    newId: () => `chk_${randomBytes(18).toString('base64url')}`,
    // 256 random bits: what only the session's creator holds (its id travels in URLs, this only in a header).
    newSecret: () => `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`,
  };
}
