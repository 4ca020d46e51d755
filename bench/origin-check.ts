/**
 * Issue 31, finding 2: what the origin check costs. Three figures, all in this process:
 * - a warm request's check alone (`callerOf`: SHA-256 of the header, constant-time compares with
 *   the three accepted values, the viewer address's format), in µs;
 * - a warm request through `createDomainHandler` (middy, the check, the ApiRequest, a route that
 *   answers at once), with the check and without it, in µs, interleaved rounds, medians;
 * - the Secrets Manager reads the check makes: a cold instance, then a flood of direct calls
 *   (no secret, made-up secrets) over simulated minutes, counted at its port (each read is three
 *   GetSecretValue calls, one per accepted staging label; test/cdk/bundles.test.ts counts those
 *   calls from the deployed bundles).
 * Usage: npx tsx bench/origin-check.ts [requests=200000]
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import {
  ACCEPTED_ORIGIN_SECRET_STAGES,
  ORIGIN_SECRET_REFRESH_SECONDS,
  ORIGIN_VERIFY_HEADER,
  VIEWER_ADDRESS_HEADER,
} from '../lambdas/contract/edge-identity';
import { createDomainHandler } from '../lambdas/platform/domain-handler';
import { json } from '../lambdas/platform/http';
import { originGuard, type OriginGuard } from '../lambdas/platform/origin-verify';

const requests = Number(process.argv[2] ?? '200000');
process.env['PUBLIC_BASE_URL'] = 'https://market.example';
process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';

const SECRET = 'Qm9yaWdpbi1zZWNyZXQtb2YtdGhlLWJlbmNoLTAxMjM0NTY3ODk';
const values = [SECRET, `${SECRET}-pending`, `${SECRET}-previous`];
const headers = { host: 'x.execute-api.us-east-1.amazonaws.com', [ORIGIN_VERIFY_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: '203.0.113.7' };
const event = {
  version: '2.0',
  routeKey: 'GET /api/health',
  rawPath: '/api/health',
  rawQueryString: '',
  headers,
  requestContext: {
    requestId: 'r',
    http: { method: 'GET', path: '/api/health', protocol: 'HTTP/1.1', sourceIp: '130.176.0.10', userAgent: '' },
  },
  isBase64Encoded: false,
} as unknown as APIGatewayProxyEventV2;
const ctx = { awsRequestId: 'r', functionName: 'f', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// 1. The check alone, warm.
const guard = originGuard({ secrets: async () => values });
await guard.callerOf(headers);
const checkRounds: number[] = [];
for (let round = 0; round < 7; round++) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) guard.callerOf(headers);
  checkRounds.push(Number(process.hrtime.bigint() - t0) / 1000 / requests);
}

// 2. A warm request through createDomainHandler, with and without the check.
const handlerWith = (origin: OriginGuard | undefined) => {
  const ok = () => json(200, { ok: true });
  return createDomainHandler('discovery', {
    routes: {
      getHealth: ok,
      getEsp: ok,
      getShop: ok,
      getJudges: ok,
      getOpenApi: ok,
      getEspDiscovery: ok,
      getX402Discovery: ok,
      getPackProvenance: ok,
    },
    ports: () => ({}),
    origin,
  });
};
const withCheck = handlerWith(originGuard({ secrets: async () => values }));
const without = handlerWith(undefined);
const perRequest = async (h: typeof withCheck, n: number): Promise<number> => {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await h(event, ctx);
  return Number(process.hrtime.bigint() - t0) / 1000 / n;
};
await perRequest(withCheck, 2000);
await perRequest(without, 2000);
const handlerRounds = { with: [] as number[], without: [] as number[] };
for (let round = 0; round < 7; round++) {
  handlerRounds.with.push(await perRequest(withCheck, requests / 4));
  handlerRounds.without.push(await perRequest(without, requests / 4));
}

// 3. Secrets Manager reads: a cold instance, then ten simulated minutes of direct calls.
let reads = 0;
let clock = 0;
const counted = originGuard({ secrets: async () => (reads++, values), now: () => clock });
await counted.callerOf(headers);
const coldReads = reads;
let refused = 0;
const floodMinutes = 10;
const perSecond = 1000;
for (let s = 0; s < floodMinutes * 60; s++) {
  for (let i = 0; i < perSecond; i++) {
    clock = s * 1000 + i;
    const direct = i % 2 ? {} : { [ORIGIN_VERIFY_HEADER]: `made-up-${s}-${i}`, [VIEWER_ADDRESS_HEADER]: '198.51.100.9' };
    try {
      await counted.callerOf(direct);
    } catch {
      refused++;
    }
  }
}
const floodReads = reads - coldReads;
const calls = (n: number) => n * ACCEPTED_ORIGIN_SECRET_STAGES.length;

console.log('| measure | value |\n|---|---|');
console.log(`| the check alone, warm (\`callerOf\`, ${requests} calls × 7 rounds, median) | ${median(checkRounds).toFixed(2)} µs |`);
console.log(
  `| a warm request through createDomainHandler, with the check / without (${requests / 4} × 7 interleaved rounds, medians) | ${median(handlerRounds.with).toFixed(2)} µs / ${median(handlerRounds.without).toFixed(2)} µs |`,
);
console.log(
  `| Secrets Manager at a cold instance's first request through the edge | ${coldReads} read = ${calls(coldReads)} GetSecretValue calls |`,
);
console.log(
  `| ${floodMinutes} min of direct calls at ${perSecond}/s (half without a secret, half made-up), one instance | ${refused} refused; ${floodReads} reads = ${calls(floodReads)} GetSecretValue calls (one read per ${ORIGIN_SECRET_REFRESH_SECONDS} s at most) |`,
);
