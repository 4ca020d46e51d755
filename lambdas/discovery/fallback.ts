import { methodNotAllowed, notFound } from '../platform/errors';
import { type ApiRequest, type ApiResponse } from '../platform/http';
import { matchRoute } from '../platform/route-matcher';

/**
 * Answers what no route claims: CORS preflights, a known path with the wrong method (405),
 * and everything else under /api/* or /.well-known/* (404 not_found JSON, never HTML).
 */
export function fallback(req: ApiRequest): ApiResponse {
  const { allowed } = matchRoute(req.method, req.path);
  if (req.method === 'OPTIONS') {
    return {
      statusCode: 204,
      headers: {
        'access-control-allow-methods': 'GET, POST, PUT, OPTIONS',
        'access-control-allow-headers':
          'Content-Type, X-PAYMENT, PAYMENT-SIGNATURE, X-AP2-MANDATE, X-LICENSE, SIGN-IN-WITH-X, Authorization, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Idempotency-Key, API-Version, UCP-Agent, Request-Id',
        'access-control-max-age': '86400',
        'cache-control': 'no-store',
      },
      body: '',
    };
  }
  if (allowed.length > 0) throw methodNotAllowed(req.method, req.path, allowed);
  throw notFound(`No endpoint at ${req.method} ${req.path}.`, 'Check GET /api/health; GET /api/ready lists what the service can do.');
}
