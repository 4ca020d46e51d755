/**
 * Which A2A version a request speaks, from its A2A-Version header, decided as the A2A SDK's own
 * transports decide it: no header (what v0.3 clients send) or `0.3` is v0.3; anything else is
 * what it names (1.x clients send `1.0`), checked against the card's interfaces by the SDK.
 */
import { A2A_VERSION_HEADER as HEADER } from '../contract/routes';

/** The header A2A 1.0 clients name their version in (lower-cased, as ApiRequest carries headers). */
export const A2A_VERSION_HEADER = HEADER.toLowerCase();
/** What the SDK compares the header with for v0.3 (its A2A_LEGACY_PROTOCOL_VERSION). */
export const LEGACY_VERSION = '0.3';

/** The version a request names: the header, or 0.3 when there is none (A2A 1.0 §3.6.2). */
export function requestedVersion(headers: Record<string, string>): string {
  return headers[A2A_VERSION_HEADER]?.trim() || LEGACY_VERSION;
}

/** Whether a request speaks v0.3. */
export const speaksLegacy = (headers: Record<string, string>): boolean => requestedVersion(headers) === LEGACY_VERSION;
