/**
 * The origin secret's rotation (Secrets Manager's four steps, secret-rotation.ts): `createSecret`
 * stores a new random value as AWSPENDING; `setSecret` waits until no function can still be
 * inside its re-read wait from before that value existed, then puts it in the distribution's
 * origin custom header (one UpdateDistribution with the config's ETag, so a concurrent change is
 * refused rather than overwritten); `testSecret` reads the distribution back; `finishSecret` makes
 * it AWSCURRENT. The functions accept the current, pending and previous values throughout, because
 * CloudFront's edges take the new configuration over minutes.
 */
import { randomBytes } from 'node:crypto';
import { ORIGIN_SECRET_REFRESH_SECONDS, ORIGIN_VERIFY_HEADER } from '../contract/edge-identity';
import { RotationRefused, type RotationTarget } from './secret-rotation';

/** The CDN's side of the origin secret: what its origins send in the header, and a change of it. */
export interface OriginHeaderTarget {
  /** The header's value on every origin that carries it (none when no origin does). */
  read(): Promise<readonly string[]>;
  /** Sets the header's value on every origin that carries it. */
  write(value: string): Promise<void>;
}

/** The part of a CloudFront distribution configuration the rotation reads and changes. */
export interface OriginsConfig {
  Origins?:
    | {
        Items?:
          | {
              CustomHeaders?: { Items?: { HeaderName?: string | undefined; HeaderValue?: string | undefined }[] | undefined } | undefined;
            }[]
          | undefined;
      }
    | undefined;
}

/** The origin custom headers named `headerName` (any case), in a distribution configuration. */
export function originHeaders(
  config: OriginsConfig | undefined,
  headerName = ORIGIN_VERIFY_HEADER,
): { HeaderValue?: string | undefined }[] {
  const name = headerName.toLowerCase();
  return (config?.Origins?.Items ?? []).flatMap((o) => (o.CustomHeaders?.Items ?? []).filter((h) => h.HeaderName?.toLowerCase() === name));
}

/** A new origin secret: 32 random bytes, base64url (43 characters, safe in a header). */
export const newOriginSecret = (): string => randomBytes(32).toString('base64url');

/**
 * The origin secret's rotation target. `pause` waits (setTimeout in the function; a fake in tests).
 * The wait before the distribution gets the new value is the functions' re-read period, so a
 * function that read the secret just before the new value was stored is free to read again by
 * the time any edge sends it.
 */
export function originSecretTarget(cdn: OriginHeaderTarget, pause: (ms: number) => Promise<void>): RotationTarget {
  return {
    newValue: newOriginSecret,
    async set(pending) {
      const sent = await cdn.read();
      if (sent.length === 0) throw new RotationRefused(`no origin of the distribution carries the ${ORIGIN_VERIFY_HEADER} header`);
      if (sent.every((v) => v === pending)) return 'nothing-to-do';
      await pause(ORIGIN_SECRET_REFRESH_SECONDS * 1000);
      await cdn.write(pending);
      return 'done';
    },
    async test(pending) {
      const sent = await cdn.read();
      if (sent.length === 0 || sent.some((v) => v !== pending))
        throw new RotationRefused(`the distribution does not send the pending value in ${ORIGIN_VERIFY_HEADER} (setSecret did not finish)`);
    },
  };
}
