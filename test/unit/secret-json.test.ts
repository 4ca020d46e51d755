/**
 * The Secrets Manager readers behind the Stripe keys and the RPC secret, against a stand-in for
 * the Secrets Manager API (the SDK pointed at it with AWS_ENDPOINT_URL_SECRETS_MANAGER): one JSON
 * document per secret, read by the same helper.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretsManagerStripeKeys } from '../../lambdas/checkout/adapters/stripe-keys';
import { secretsManagerRpcSecret } from '../../lambdas/platform/adapters/rpc-secret';

const SECRETS: Record<string, string> = {
  rpc: JSON.stringify({ RPC_URLS: 'https://a.example/v2/KEY1,https://mainnet.base.org' }),
  'rpc-blank': JSON.stringify({ RPC_URLS: '  ' }),
  'rpc-array': JSON.stringify(['https://a.example']),
  stripe: JSON.stringify({ STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' }),
  'stripe-blank': JSON.stringify({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' }),
  'not-json': 'https://a.example/v2/KEY1',
};

let server: Server;
const saved = { ...process.env };
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      res.end(JSON.stringify({ ARN: SecretId, Name: SecretId, SecretString: SECRETS[SecretId] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});
afterAll(() => {
  server.close();
  // This worker may run other files next: the stand-in's endpoint and credentials go with it.
  for (const name of ['AWS_ENDPOINT_URL_SECRETS_MANAGER', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
});

describe('secrets holding JSON', () => {
  it('the RPC secret: its RPC_URLS field, nothing while blank, an error for anything but a JSON object', async () => {
    expect(await secretsManagerRpcSecret('rpc')).toBe('https://a.example/v2/KEY1,https://mainnet.base.org');
    expect(await secretsManagerRpcSecret('rpc-blank')).toBeUndefined();
    await expect(secretsManagerRpcSecret('rpc-array')).rejects.toThrow('the RPC secret is not a JSON object');
    await expect(secretsManagerRpcSecret('not-json')).rejects.toThrow('the RPC secret is not a JSON object');
  });

  it('the Stripe secret: both keys, nothing while blank, an error when it is not JSON', async () => {
    expect(await secretsManagerStripeKeys('stripe')()).toEqual({ secretKey: 'sk_test_1', webhookSecret: 'whsec_1' });
    expect(await secretsManagerStripeKeys('stripe-blank')()).toBeUndefined();
    await expect(secretsManagerStripeKeys('not-json')()).rejects.toThrow('the Stripe secret is not a JSON object');
  });
});
