/**
 * Issue 31, finding 2: behind CloudFront every viewer reaches API Gateway from one edge host, so a
 * service keyed on API Gateway's peer had one caller for everyone: viewer B got viewer A's
 * just-claimed pack through the lost-response retry, and A's A2A flood gave B 429s. The caller is
 * the viewer the edge reports, believed only beside the origin secret.
 *
 * First at the handler level, as in AWS: the very Lambda handlers (access, agents) in this worker,
 * on the run's DynamoDB Local and anvil (the workers inherit the stack's environment, origin secret
 * file included), given events whose `requestContext.http.sourceIp` is CloudFront's edge host for
 * both viewers. Then through the running local edge, which stands where CloudFront does: two
 * viewers on two loopback addresses behind it, one upstream address as the handlers see it.
 * Viewers use 127.0.0.21–24; the buyers are fresh accounts funded by storage writes, so no test
 * account's nonce is shared with another file.
 */
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createWalletClient, erc20Abi, http, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../lambdas/contract/edge-identity';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';
import { requestFrom } from '../support/source-address';

const base = inject('baseUrl');
const rpcUrl = inject('rpcUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const chain = chainTools(rpcUrl);
const CANARY = 'agent-x402-first-buy';
const CANARY_PRICE = 5000n;
/** CloudFront's edge host: API Gateway's peer for every viewer behind it. */
const CLOUDFRONT_EDGE = '130.176.0.10';
const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A transfer of the canary's price to the treasury by a fresh buyer. */
async function freshTransfer(): Promise<Hex> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.setEthBalance(account.address, parseEther('1'));
  await chain.setTokenBalance(USDC, account.address, CANARY_PRICE);
  const wallet = createWalletClient({ account, chain: localChain(rpcUrl), transport: http(rpcUrl) });
  const hash = await wallet.writeContract({ address: USDC, abi: erc20Abi, functionName: 'transfer', args: [TREASURY, CANARY_PRICE] });
  await chain.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return hash;
}

describe('at the handler level: two viewers behind one CloudFront edge host are two callers', () => {
  type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
  let access: Handler;
  let agents: Handler;
  let secret: string;
  const ctx = { awsRequestId: 'viewer-identity', functionName: 'f', getRemainingTimeInMillis: () => 25_000 } as unknown as Context;

  beforeAll(async () => {
    const file = process.env[INFRA_ENV.originSecretFile];
    expect(file, 'the local stack configures an origin secret, and the workers inherit its environment').toBeTruthy();
    secret = readFileSync(file!, 'utf8').trim();
    access = (await import('../../lambdas/access/handler')).handler as Handler;
    agents = (await import('../../lambdas/agents/handler')).handler as Handler;
  });

  /** The event API Gateway passes for a request CloudFront forwarded from `viewer`. */
  const throughCloudFront = (viewer: string, routeKey: string, headers: Record<string, string>, body?: string): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey,
      rawPath: routeKey.split(' ')[1],
      rawQueryString: '',
      headers: {
        host: 'abc123.execute-api.us-east-1.amazonaws.com',
        ...headers,
        [ORIGIN_VERIFY_HEADER]: secret,
        [VIEWER_ADDRESS_HEADER]: viewer,
      },
      requestContext: {
        requestId: `r-${Math.random()}`,
        http: {
          method: routeKey.split(' ')[0],
          path: routeKey.split(' ')[1],
          protocol: 'HTTP/1.1',
          sourceIp: CLOUDFRONT_EDGE,
          userAgent: '',
        },
      },
      ...(body !== undefined ? { body } : {}),
      isBase64Encoded: false,
    }) as unknown as APIGatewayProxyEventV2;
  const parsed = (res: APIGatewayProxyStructuredResultV2) => JSON.parse(res.body ?? '{}');

  it("viewer B does not get viewer A's just-claimed pack through the retry window; A does", async () => {
    const tx = await freshTransfer();
    const claim = (viewer: string) =>
      access(throughCloudFront(viewer, 'POST /api/pay', { 'x-payment': JSON.stringify({ txHash: tx, skill: CANARY }) }), ctx);
    const a = await claim('203.0.113.1');
    expect(a.statusCode).toBe(200);
    // B read the txHash and skill from the public ledger, and reaches API Gateway from the same edge host.
    const b = await claim('203.0.113.2');
    expect(b.statusCode).toBe(403);
    expect(parsed(b)).toMatchObject({ error_code: 'BUYER_PROOF_REQUIRED' });
    expect(parsed(b).sealed_pack).toBeUndefined();
    // A's lost response: A may fetch it again.
    const again = await claim('203.0.113.1');
    expect(again.statusCode).toBe(200);
    expect(parsed(again).sealed_pack).toEqual(parsed(a).sealed_pack);
  });

  it("viewer A's flood of A2A gives A 429s, and viewer B none", async () => {
    const junk = (viewer: string) => agents(throughCloudFront(viewer, 'POST /api/a2a', JSON_RPC, 'junk'), ctx);
    for (let i = 0; i < 120; i++) expect((await junk('203.0.113.3')).statusCode).not.toBe(429);
    expect((await junk('203.0.113.3')).statusCode).toBe(429);
    const b = await junk('203.0.113.4');
    expect(b.statusCode).not.toBe(429);
    expect(parsed(b)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it("viewer B does not read viewer A's A2A task (issue 50, finding 8); A does", async () => {
    const rpc = (viewer: string, method: string, params: Record<string, unknown>) =>
      agents(
        throughCloudFront(
          viewer,
          'POST /api/a2a',
          { ...JSON_RPC, 'a2a-version': '1.0' },
          JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        ),
        ctx,
      );
    const sent = parsed(
      await rpc('203.0.113.5', 'SendMessage', {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'clean a csv' }] },
      }),
    );
    const id = sent.result.task.id;
    // B reaches API Gateway from the same edge host as A.
    expect(parsed(await rpc('203.0.113.6', 'GetTask', { id }))).toMatchObject({ error: { code: -32001 } });
    expect(parsed(await rpc('203.0.113.5', 'GetTask', { id })).result.id).toBe(id);
  });

  it('the same events without the origin secret (a direct call to execute-api) are refused, whatever viewer they name', async () => {
    const direct = throughCloudFront('203.0.113.1', 'POST /api/a2a', JSON_RPC, 'junk');
    delete direct.headers[ORIGIN_VERIFY_HEADER];
    const res = await agents(direct, ctx);
    expect(res.statusCode).toBe(403);
    expect(parsed(res)).toMatchObject({ ok: false, error_code: 'ORIGIN_REQUIRED', retry: false });
  });
});

describe('through the local edge: two viewers behind one upstream address are two callers', () => {
  it('a second viewer gets no pack the first claimed, even naming the first in the viewer-address header', async () => {
    const tx = await freshTransfer();
    const claim = (from: string, headers: Record<string, string> = {}) =>
      requestFrom(from, `${base}/api/pay`, {
        method: 'POST',
        headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: CANARY }), ...headers },
      });
    const first = await claim('127.0.0.21');
    expect(first.status).toBe(200);
    const other = await claim('127.0.0.22');
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ error_code: 'BUYER_PROOF_REQUIRED' });
    // The edge overwrites what a viewer says of itself, as CloudFront's function does, and any origin secret it guesses.
    const forged = await claim('127.0.0.22', { [VIEWER_ADDRESS_HEADER]: '127.0.0.21', [ORIGIN_VERIFY_HEADER]: 'guessed' });
    expect(forged.status).toBe(403);
    expect((await claim('127.0.0.21')).status).toBe(200);
  });

  it("one viewer's A2A flood limits that viewer only", async () => {
    const junk = (from: string) => requestFrom(from, `${base}/api/a2a`, { method: 'POST', headers: JSON_RPC, body: 'junk' });
    for (let i = 0; i < 120; i++) expect((await junk('127.0.0.23')).status).not.toBe(429);
    expect((await junk('127.0.0.23')).status).toBe(429);
    expect((await junk('127.0.0.24')).status).not.toBe(429);
  });
});
