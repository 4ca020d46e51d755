import { LEDGER_TABLE, TALLIES_TABLE } from '../contract/tables';
import { ORIGIN_SECRET_ROTATION_DAYS } from '../contract/schedules';
import type { DomainInfra } from '../contract/infra';

/**
 * ESP, shop and judges report figures from the ledger's counters and the newest ledger row: read only.
 * Discovery answers whatever the edge sends that no route claims, and owns the rotation of the
 * origin secret the edge adds (origin-secret-rotation-handler.ts), which Secrets Manager runs.
 */
export const infra: DomainInfra = {
  tables: [
    { table: TALLIES_TABLE.logicalName, access: 'read' },
    { table: LEDGER_TABLE.logicalName, access: 'read' },
  ],
  originSecretRotation: { entry: 'origin-secret-rotation-handler.ts', everyDays: ORIGIN_SECRET_ROTATION_DAYS },
};
