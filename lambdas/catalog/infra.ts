import { INTENTS_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/**
 * The catalog function writes intent bounties; the catalog itself travels in the bundle. The
 * catalog's versions (issue 52) are published into the write-once versions bucket at deploy by its
 * publisher (publish-versions-handler.ts), which CloudFormation runs.
 */
export const infra: DomainInfra = {
  tables: [{ table: INTENTS_TABLE.logicalName, access: 'readWrite' }],
  versionsPublisher: { entry: 'publish-versions-handler.ts' },
};
