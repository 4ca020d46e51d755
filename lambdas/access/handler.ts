/**
 * Lambda entry of the access domain: /api/pay (GET: the 402 challenge, or x402 v2's settlement of a
 * signed authorization; POST: every unlock), /api/recover, AP2 mandates,
 * agent identity, access decisions, subscriptions and meters.
 *
 * Every route loads on its first request, as the agents function's do: a route that imports
 * payments' face, even for the challenge alone, puts all that the face imports statically (the
 * unlock, the settlement core, the header schemas and zod) in chunks this entry would import,
 * since esbuild places a module by what imports it, not by what is used of it. The ports'
 * wiring loads that face on the first request anyway, beside the origin secret's read; the
 * Lambda's init phase parses only the domain handler (docs/PERFORMANCE.md, "Cold start").
 */
import { createDomainHandler, loadedOnFirstRequest } from '../platform/domain-handler';

export const handler = createDomainHandler('access', {
  routes: {
    getPay: loadedOnFirstRequest(() => import('./pay').then((m) => m.getPay)),
    postPay: loadedOnFirstRequest(() => import('./pay').then((m) => m.postPay)),
    postRecover: loadedOnFirstRequest(() => import('./pay').then((m) => m.postRecover)),
    getMandates: loadedOnFirstRequest(() => import('./mandates').then((m) => m.getMandates)),
    postMandates: loadedOnFirstRequest(() => import('./mandates').then((m) => m.postMandates)),
    getAgentIdentity: loadedOnFirstRequest(() => import('./identity').then((m) => m.getAgentIdentity)),
    getAccess: loadedOnFirstRequest(() => import('./access-route').then((m) => m.getAccess)),
    getPurchases: loadedOnFirstRequest(() => import('./purchases').then((m) => m.getPurchases)),
    getSubscribe: loadedOnFirstRequest(() => import('./subscribe').then((m) => m.getSubscribe)),
    postSubscribe: loadedOnFirstRequest(() => import('./subscribe').then((m) => m.postSubscribe)),
    getMeter: loadedOnFirstRequest(() => import('./meter').then((m) => m.getMeter)),
    postMeter: loadedOnFirstRequest(() => import('./meter').then((m) => m.postMeter)),
  },
  ports: () => import('./wiring').then((m) => m.accessPortsFromEnv()),
});
