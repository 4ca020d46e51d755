import { TALLIES_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/**
 * Insights reads the tallies (revenue, signals, trust); the build's reports travel in the catalog
 * data. Not the intent bounties: they are unconfirmed requests, never a signal (issue 31).
 */
export const infra: DomainInfra = { tables: [{ table: TALLIES_TABLE.logicalName, access: 'read' }] };
