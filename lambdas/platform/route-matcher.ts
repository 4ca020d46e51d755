/**
 * Matches a request to the route table as API Gateway does: the patterns tried in the table's
 * order, `{name}` standing for one path segment, the first route with the request's method
 * wins. Also says which methods a known path allows (for 405 with Allow). The discovery
 * function's fallback and the local edge use it; in AWS, API Gateway routes by the same table.
 */
import { ROUTES, routeKey, type HttpMethod, type Route } from '../contract/routes';

const escapeRegex = (s: string): string => s.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');

const patterns = ROUTES.map((route) => {
  const names: string[] = [];
  const source = (route.path as string)
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param?.[1]) return escapeRegex(segment);
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, key: routeKey(route), names, regex: new RegExp(`^${source}$`) };
});

export interface RouteMatch {
  route: Route;
  /** API Gateway's route key for it, e.g. `GET /api/health`. */
  routeKey: string;
  pathParameters: Record<string, string>;
}

/** What {@link matchRoute} answers: the route for the method, if any, and the methods the path allows. */
export interface RouteLookup {
  match: RouteMatch | undefined;
  allowed: HttpMethod[];
}

/**
 * Finds the route for a method and path. Path parameters are percent-decoded, as API Gateway
 * does; one that is not valid percent-encoding throws a `URIError` (the caller's 400).
 */
export function matchRoute(method: string, path: string): RouteLookup {
  const allowed: HttpMethod[] = [];
  let match: RouteMatch | undefined;
  for (const { route, key, names, regex } of patterns) {
    const m = regex.exec(path);
    if (!m) continue;
    allowed.push(route.method);
    if (route.method === method && match === undefined) {
      const pathParameters: Record<string, string> = {};
      names.forEach((n, i) => {
        pathParameters[n] = decodeURIComponent(m[i + 1] ?? '');
      });
      match = { route, routeKey: key, pathParameters };
    }
  }
  return { match, allowed };
}
