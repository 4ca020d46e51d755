/**
 * Requests reach the API only through the edge, and the caller is the viewer the edge reports
 * (docs/SECURITY.md, "The caller is the viewer the edge reports"). CloudFront adds the origin
 * secret to every request it sends the API and a viewer-request function adds the viewer's
 * address (contract/edge-identity.ts); the execute-api endpoint is reachable by anyone, so a
 * request without a valid secret is refused (403 ORIGIN_REQUIRED) before routing, and the
 * viewer-address header is believed only beside a valid secret.
 *
 * With no secret configured (a handler called with a hand-made event in a unit test) the check is
 * off and the viewer-address header is ignored: the caller is the direct peer. The stack and the
 * local run always configure it.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import {
  ORIGIN_SECRET_MAX_AGE_SECONDS,
  ORIGIN_SECRET_REFRESH_SECONDS,
  ORIGIN_VERIFY_HEADER,
  VIEWER_ADDRESS_HEADER,
} from '../contract/edge-identity';
import { INFRA_ENV } from '../contract/env';
import { internalError, originRequired } from './errors';
import { logger } from './logger';

/** Every value of the origin secret the edge may be sending now (current, pending, previous). */
export type OriginSecrets = () => Promise<readonly string[]>;

export interface OriginGuardOptions {
  secrets: OriginSecrets;
  /** Milliseconds since the epoch; the system clock unless a test sets it. */
  now?: () => number;
  /** After a read, a secret nobody knows does not cause another for this long (ORIGIN_SECRET_REFRESH_SECONDS). */
  refreshAfterMs?: number;
  /** Accepted values older than this are read again (ORIGIN_SECRET_MAX_AGE_SECONDS). */
  maxAgeMs?: number;
}

export interface OriginGuard {
  /**
   * The caller of a request the edge forwarded: the viewer address it reports. Throws 403
   * ORIGIN_REQUIRED for a request without a valid origin secret. Answers at once, with no
   * promise, while the accepted values are known and fresh; a request with no secret at all is
   * refused without reading anything.
   */
  callerOf(headers: Readonly<Record<string, string | undefined>> | undefined): string | Promise<string>;
}

/** One refusal for every direct call: a flood of them allocates nothing per request. */
const REFUSED = originRequired();

/** One-shot SHA-256 (`crypto.hash`): half the time of a createHash chain on this short input. */
const digest = (value: string): Buffer => hash('sha256', value, 'buffer');

/**
 * Compared as SHA-256 digests with `timingSafeEqual`: equal lengths whatever was sent, and the
 * time taken says nothing of how much of a value matched.
 */
function matches(known: readonly Buffer[], given: Buffer): boolean {
  let hit = false;
  for (const k of known) hit = timingSafeEqual(k, given) || hit;
  return hit;
}

export function originGuard(opts: OriginGuardOptions): OriginGuard {
  const now = opts.now ?? Date.now;
  const refreshAfterMs = opts.refreshAfterMs ?? ORIGIN_SECRET_REFRESH_SECONDS * 1000;
  const maxAgeMs = opts.maxAgeMs ?? ORIGIN_SECRET_MAX_AGE_SECONDS * 1000;
  /** Digests of the accepted values, once read; kept through a failed read. */
  let known: Buffer[] | undefined;
  let loadedAt = -Infinity;
  /** When the last read started, successful or not: reads are at least `refreshAfterMs` apart but for age. */
  let triedAt = -Infinity;
  let reading: Promise<void> | undefined;

  /** One read at a time; never rejects: a failed read keeps what was known and is logged. */
  const refresh = (): Promise<void> =>
    (reading ??= (async () => {
      triedAt = now();
      try {
        const values = await opts.secrets();
        known = values.filter((v) => v !== '').map(digest);
        loadedAt = now();
        if (known.length === 0) logger.error('the origin secret has no value: every API request is refused');
      } catch (e) {
        logger.error('the origin secret could not be read', { error: (e as Error).name });
      } finally {
        reading = undefined;
      }
    })());

  const viewerOf = (headers: Readonly<Record<string, string | undefined>>): string => {
    const viewer = headers[VIEWER_ADDRESS_HEADER];
    if (viewer && isIP(viewer) !== 0) return viewer;
    // The edge always adds it (the stack pins the function on every API behaviour): its absence is a deploy fault.
    logger.error('a request through the edge carries no viewer address', { header: VIEWER_ADDRESS_HEADER });
    throw internalError("The edge did not report the caller's address.");
  };

  /** The verdict once a read has ended: with what is known now, or 503 when nothing ever was. */
  const decide = (headers: Readonly<Record<string, string | undefined>>, given: Buffer): string => {
    if (known === undefined) throw internalError('The service could not check where this request came from; retry shortly.');
    if (matches(known, given)) return viewerOf(headers);
    throw REFUSED;
  };

  return {
    callerOf(headers) {
      const sent = headers?.[ORIGIN_VERIFY_HEADER];
      if (!sent) throw REFUSED;
      const given = digest(sent);
      const t = now();
      if (known !== undefined && t - loadedAt < maxAgeMs && matches(known, given)) return viewerOf(headers!);
      // A read under way brings the newest values: wait for it rather than read again.
      if (reading) return reading.then(() => decide(headers!, given));
      // Read again only past the wait: a flood of made-up secrets costs one read per period.
      if (t - triedAt < refreshAfterMs) return decide(headers!, given);
      return refresh().then(() => decide(headers!, given));
    },
  };
}

/**
 * The guard this function runs with: the Secrets Manager secret the stack names (its client
 * loads from its own chunk on the first request that carries a secret), or the local run's file;
 * undefined when neither is configured.
 */
export function originGuardFromEnv(env: NodeJS.ProcessEnv = process.env): OriginGuard | undefined {
  const arn = env[INFRA_ENV.originSecretArn];
  if (arn) return originGuard({ secrets: () => import('./adapters/secret-versions').then((m) => m.secretsManagerOriginSecrets(arn)) });
  const file = env[INFRA_ENV.originSecretFile];
  if (file) return originGuard({ secrets: () => import('./adapters/file-origin-secret').then((m) => m.fileOriginSecrets(file)) });
  return undefined;
}
