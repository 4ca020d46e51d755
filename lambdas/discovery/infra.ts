import { LEDGER_TABLE } from '../contract/tables';
import type { DomainInfra } from '../contract/infra';

/** ESP, shop and judges report figures computed from the ledger: read only. */
export const infra: DomainInfra = { tables: [{ table: LEDGER_TABLE.logicalName, access: 'read' }] };
