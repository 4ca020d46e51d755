import { LEDGER_TABLE, PROVENANCE_TABLE, TALLIES_TABLE } from '../contract/tables';
import { ORIGIN_SECRET_ROTATION_DAYS } from '../contract/schedules';
import type { DomainInfra } from '../contract/infra';

/**
 * ESP, shop and judges report figures from the ledger's counters and the newest ledger row: read only.
 * Discovery answers whatever the edge sends that no route claims, and owns the rotation of the
 * origin secret the edge adds (origin-secret-rotation-handler.ts), which Secrets Manager runs.
 * The provenance route signs each version's statements once with the service key and keeps them
 * in the provenance table (its only write). It reads the escrow operator's address, which x402
 * discovery names, and may not sign with that key.
 */
export const infra: DomainInfra = {
  tables: [
    { table: TALLIES_TABLE.logicalName, access: 'read' },
    { table: LEDGER_TABLE.logicalName, access: 'read' },
    { table: PROVENANCE_TABLE.logicalName, access: 'readWrite' },
  ],
  signsWithServiceKey: true,
  // /.well-known/x402 lists the same offers as the 402, whose auth-capture entry names the escrow
  // operator (`captureAuthorizer`): its address only, never a signature; listed, as the 402 lists
  // it, only while the operator's account delegates to its guard (read from the chain's public RPC).
  readsEscrowOperatorAddress: true,
  originSecretRotation: { entry: 'origin-secret-rotation-handler.ts', everyDays: ORIGIN_SECRET_ROTATION_DAYS },
};
