import type { TableDefinition } from '../contract/tables';

/**
 * The physical name of a table: from its env var in a Lambda (the stack sets it), its logical
 * name locally. Reading the environment is configuration, so it is the platform's, not the contract's.
 */
export function tableName(def: TableDefinition, env: NodeJS.ProcessEnv = process.env): string {
  return env[def.env] ?? `skill-market-${def.logicalName.toLowerCase()}`;
}
