import { LEDGER_TABLE, TALLIES_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/** ESP, shop and judges report figures from the tallies and the newest ledger row: read only. */
export const infra: DomainInfra = {
  tables: [
    { table: TALLIES_TABLE.logicalName, access: 'read' },
    { table: LEDGER_TABLE.logicalName, access: 'read' },
  ],
};
