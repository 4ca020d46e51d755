import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableDefinition } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import type { TableStatus } from '../ports';

/** Describes each table; a table is usable when it exists and is ACTIVE. */
export function dynamoTableProbe(client: DynamoDBClient, tables: readonly TableDefinition[]) {
  return async (): Promise<TableStatus[]> =>
    Promise.all(
      tables.map(async (def) => {
        const name = tableName(def);
        try {
          const out = await client.send(new DescribeTableCommand({ TableName: name }));
          const status = out.Table?.TableStatus ?? 'UNKNOWN';
          return { logicalName: def.logicalName, name, ok: status === 'ACTIVE', detail: status };
        } catch (e) {
          return { logicalName: def.logicalName, name, ok: false, detail: (e as Error).name || 'unreachable' };
        }
      }),
    );
}
