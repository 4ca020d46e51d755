/** Every domain's infrastructure manifest, keyed by domain; the stack builds each function from its manifest. */
import { infra as access } from '../lambdas/access/infra';
import { infra as agents } from '../lambdas/agents/infra';
import { infra as catalog } from '../lambdas/catalog/infra';
import { infra as checkout } from '../lambdas/checkout/infra';
import type { DomainInfra } from '../lambdas/contract/infra';
import { activeDomains, type Domain } from '../lambdas/contract/routes';
import { infra as discovery } from '../lambdas/discovery/infra';
import { infra as insights } from '../lambdas/insights/infra';
import { infra as ledger } from '../lambdas/ledger/infra';
import { infra as payments } from '../lambdas/payments/infra';

export const DOMAIN_INFRA: Partial<Record<Domain, DomainInfra>> = {
  discovery,
  catalog,
  payments,
  access,
  agents,
  checkout,
  insights,
  ledger,
};

/** A domain with routes but no manifest gets nothing beyond its bundle and the catalog. */
export const infraOf = (domain: Domain): DomainInfra => DOMAIN_INFRA[domain] ?? { tables: [] };

/** One domain that has routes, and what its functions need from the stack. */
export interface Manifest {
  readonly domain: Domain;
  readonly infra: DomainInfra;
}

/** A resource the stack makes only if some manifest asks for it. */
export type SharedNeed = 'licenseKey' | 'startsConfirmations' | 'signsWithServiceKey' | 'stripeKeys' | 'relaysPayments' | 'readsChain';

/** The manifests of the domains that have routes (in the route table's domain order), and whether any of them needs a resource. */
export function activeManifests(): { all: readonly Manifest[]; needs: (need: SharedNeed) => boolean } {
  const all = activeDomains().map((domain) => ({ domain, infra: infraOf(domain) }));
  return { all, needs: (need) => all.some((m) => m.infra[need] === true) };
}
