import { json, type ApiResponse } from '../platform/http';

/** GET /api/health: liveness only; it touches no dependency, so it answers even when they are down. */
export function getHealth(_req: unknown, ports: { now: () => Date }): ApiResponse {
  return json(200, { ok: true, status: 'live', time: ports.now().toISOString() });
}
