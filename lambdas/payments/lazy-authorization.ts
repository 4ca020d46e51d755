/**
 * `unlockWithAuthorization` (authorization.ts) for other domains, loaded on its first call: the
 * access and agents functions settle a signed authorization rarely next to transfers, and a
 * module with no top-level work keeps what imports the payments barrel (discovery) from
 * carrying the settlement path.
 */
import type { unlockWithAuthorization as UnlockWithAuthorization } from './authorization';

export const unlockWithAuthorization: typeof UnlockWithAuthorization = async (...args) =>
  (await import('./authorization')).unlockWithAuthorization(...args);
