import { INTENTS_TABLE, TALLIES_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/** Insights reads the tallies (revenue, signals, trust) and the intent bounties (signals); the build's reports travel in the catalog data. */
export const infra: DomainInfra = {
  tables: [
    { table: TALLIES_TABLE.logicalName, access: 'read' },
    { table: INTENTS_TABLE.logicalName, access: 'read' },
  ],
};
