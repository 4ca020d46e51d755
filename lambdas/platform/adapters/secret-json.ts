import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { traced } from '../tracer';

let client: SecretsManagerClient | undefined;

/**
 * A Secrets Manager secret that holds a JSON document (the Stripe keys, the RPC URLs), parsed;
 * an absent string reads as `{}`. `what` names the secret in the error when it is not JSON.
 */
export async function secretsManagerJson(arn: string, what: string): Promise<unknown> {
  const out = await (client ??= traced(new SecretsManagerClient({}))).send(new GetSecretValueCommand({ SecretId: arn }));
  try {
    return JSON.parse(out.SecretString ?? '{}') as unknown;
  } catch {
    throw new Error(`${what} is not a JSON object`);
  }
}
