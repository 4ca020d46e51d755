import { SETTINGS } from '../../contract/settings';
import { secretsManagerJson } from './secret-json';

/**
 * The RPC secret's `RPC_URLS` field (the same name as the setting): a comma-separated list of
 * JSON-RPC URLs with their keys. Undefined while the field is blank; a secret that is not a JSON
 * object is an error.
 */
export async function secretsManagerRpcSecret(arn: string): Promise<string | undefined> {
  const fields = await secretsManagerJson(arn, 'the RPC secret');
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw new Error('the RPC secret is not a JSON object');
  const value = (fields as Record<string, unknown>)[SETTINGS.rpcUrls.env];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
