/**
 * The public face of the access domain: the one access decision and the unlock every surface
 * uses (MCP, A2A), with the ports they need. Nothing else of access is imported from outside it.
 */
import type { AccessPorts } from './ports';

export type { AccessPorts } from './ports';
export type { AccessDecision } from './core/decide-access';
export { decideAccess } from './core/decide-access';
export { decisionView } from './access-route';
export { mandatePolicy, mandatesDocument } from './mandates';
export { mandateView } from './core/mandate';
export { unlockPack, type UnlockRequest } from './pay';
export { PostSchema as MandatesPostSchema } from './mandates';
export { PostSchema as SubscribePostSchema } from './subscribe';
export { PostSchema as MeterPostSchema } from './meter';

/** This deployment's access ports, for the agents function's composition: access's wiring loads with the first call. */
export const accessPortsFromEnv = async (env?: NodeJS.ProcessEnv): Promise<AccessPorts> =>
  (await import('./wiring')).accessPortsFromEnv(env);
