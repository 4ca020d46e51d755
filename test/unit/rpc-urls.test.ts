/**
 * Keyed RPC URLs (issue 17): in AWS they come from the RPC secret, read on first use, tried
 * before the keyless `rpcUrls` setting; a secret that cannot be read never stops the chain
 * adapters. The transport follows the list when it changes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient } from 'viem';
import { rpcTransport } from '../../lambdas/platform/adapters/viem-rpc-transport';
import { RPC_SECRET_REFRESH_MS, rpcUrlsFromEnv, type RpcSecretReader } from '../../lambdas/platform/rpc-urls';
import { INFRA_ENV } from '../../lambdas/contract/env';

const PUBLIC = ['https://mainnet.base.org'];
const ENV = { [INFRA_ENV.rpcSecretArn]: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:rpc' };

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('rpcUrlsFromEnv', () => {
  it('is the setting alone without a secret, and never reads one', async () => {
    let reads = 0;
    const urls = rpcUrlsFromEnv({}, PUBLIC, async () => (reads++, 'https://keyed.example/v2/k'));
    expect(await urls()).toEqual(PUBLIC);
    expect(reads).toBe(0);
  });

  it("puts the secret's URLs first, drops repeats and entries that are not URLs, and reads once per refresh period", async () => {
    const c = clock();
    let reads = 0;
    let value = 'https://a.example/v2/KEY1, ftp://nope ,https://mainnet.base.org';
    const read: RpcSecretReader = async () => (reads++, value);
    const urls = rpcUrlsFromEnv(ENV, PUBLIC, read, c.now);
    const [first, second] = await Promise.all([urls(), urls()]);
    expect(first).toEqual(['https://a.example/v2/KEY1', 'https://mainnet.base.org']);
    expect(second).toBe(first);
    expect(reads).toBe(1);
    // The operator rolls the key: warm instances take it after the refresh period, not before.
    value = 'https://a.example/v2/KEY2';
    c.advance(RPC_SECRET_REFRESH_MS - 1);
    expect((await urls())[0]).toBe('https://a.example/v2/KEY1');
    c.advance(1);
    expect(await urls()).toEqual(['https://a.example/v2/KEY2', 'https://mainnet.base.org']);
    expect(reads).toBe(2);
  });

  it('falls back to the setting while the secret is blank or unreadable, and asks again on the next use', async () => {
    const c = clock();
    let fail = true;
    let reads = 0;
    const read: RpcSecretReader = async () => {
      reads++;
      if (fail) throw Object.assign(new Error('AccessDenied'), { name: 'AccessDeniedException' });
      return 'https://a.example/v2/KEY1';
    };
    const urls = rpcUrlsFromEnv(ENV, PUBLIC, read, c.now);
    expect(await urls()).toEqual(PUBLIC);
    fail = false;
    expect(await urls()).toEqual(['https://a.example/v2/KEY1', ...PUBLIC]);
    expect(reads).toBe(2);
    // Blank: the public providers, kept for the refresh period like any answer.
    const blank = rpcUrlsFromEnv(ENV, PUBLIC, async () => undefined, c.now);
    expect(await blank()).toEqual(PUBLIC);
  });
});

describe('rpcTransport', () => {
  // Two JSON-RPC servers that answer eth_chainId with different ids, and count their calls.
  const servers: Server[] = [];
  const calls = [0, 0];
  const url: string[] = [];
  beforeAll(async () => {
    for (const [i, id] of [8453, 84532].entries()) {
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => {
          calls[i]!++;
          const { id: reqId } = JSON.parse(body) as { id: number };
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ jsonrpc: '2.0', id: reqId, result: `0x${id.toString(16)}` }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      url.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });
  afterAll(() => servers.forEach((s) => s.close()));

  it('resolves the providers on the first request, not when built, and follows the list when it changes', async () => {
    let asked = 0;
    let list: string[] = ['http://127.0.0.1:9', url[0]!];
    const client = createPublicClient({ transport: rpcTransport(async () => (asked++, list), { timeout: 1_000 }) });
    expect(asked).toBe(0);
    // The first provider refuses connections: the next one answers.
    expect(await client.getChainId()).toBe(8453);
    list = [url[1]!];
    expect(await client.getChainId()).toBe(84532);
    expect(calls).toEqual([1, 1]);
    list = [];
    await expect(client.getChainId()).rejects.toThrow(/no JSON-RPC provider/);
  });
});
