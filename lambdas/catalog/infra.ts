import { INTENTS_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/** The catalog function writes intent bounties; the catalog itself travels in the bundle. */
export const infra: DomainInfra = { tables: [{ table: INTENTS_TABLE.logicalName, access: 'readWrite' }] };
