/** Every domain's infrastructure manifest, keyed by domain; the stack builds each function from its manifest. */
import { infra as access } from '../lambdas/access/infra';
import { infra as agents } from '../lambdas/agents/infra';
import { infra as catalog } from '../lambdas/catalog/infra';
import { infra as checkout } from '../lambdas/checkout/infra';
import type { DomainInfra } from '../lambdas/contract/infra';
import type { Domain } from '../lambdas/contract/routes';
import { infra as discovery } from '../lambdas/discovery/infra';
import { infra as insights } from '../lambdas/insights/infra';
import { infra as payments } from '../lambdas/payments/infra';

export const DOMAIN_INFRA: Partial<Record<Domain, DomainInfra>> = { discovery, catalog, payments, access, agents, checkout, insights };

/** A domain with routes but no manifest gets nothing beyond its bundle and the catalog. */
export const infraOf = (domain: Domain): DomainInfra => DOMAIN_INFRA[domain] ?? { tables: [] };
