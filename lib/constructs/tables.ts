import { RemovalPolicy, type Stack } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  type GlobalSecondaryIndexProps,
} from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { TABLES, type IndexProjection, type TableDefinition } from '../../lambdas/contract/tables';

/**
 * Every table of the contract (lambdas/contract/tables.ts), keyed by its logical name, each
 * table's name added to `env`. Made in the stack's own scope: a table's logical id is
 * `<logicalName>Table…`, and the retained ones (the ledger, the card sales) hold money records,
 * so that id must never change.
 *
 * CloudFormation creates or deletes at most one global secondary index per table in one stack
 * update, and cannot change an index's keys or projection in place (a changed index is a new
 * name): a change of several indexes of a deployed table is deployed in as many steps.
 */
export function createTables(stack: Stack, env: Record<string, string>): ReadonlyMap<string, Table> {
  const tables = new Map<string, Table>();
  for (const def of TABLES) {
    const table = createTable(stack, def);
    tables.set(def.logicalName, table);
    env[def.env] = table.tableName;
  }
  return tables;
}

function createTable(stack: Stack, def: TableDefinition): Table {
  const attr = (k: { name: string; type: 'S' | 'N' }) => ({
    name: k.name,
    type: k.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
  });
  const table = new Table(stack, `${def.logicalName}Table`, {
    partitionKey: attr(def.partitionKey),
    ...(def.sortKey ? { sortKey: attr(def.sortKey) } : {}),
    billingMode: BillingMode.PAY_PER_REQUEST,
    // Point-in-time recovery is what DynamoDB's export to S3 needs: finance reads the rollup from exports.
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    removalPolicy: def.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    // A table of money facts cannot be deleted by an API call either (a console click, a script):
    // the operator turns this off first, on purpose (docs/OPERATIONS.md, "Backups").
    deletionProtection: def.retain,
    ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
    // The figures' fold reads both images: a change's effect is the difference between them.
    ...(def.stream ? { stream: StreamViewType.NEW_AND_OLD_IMAGES } : {}),
  });
  for (const idx of def.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: idx.name,
      partitionKey: attr(idx.partitionKey),
      ...(idx.sortKey ? { sortKey: attr(idx.sortKey) } : {}),
      ...projection(idx.projection),
    });
  }
  return table;
}

/** What an index copies, as CDK names it: only what its queries read (lambdas/contract/tables.ts). */
function projection(p: IndexProjection): Pick<GlobalSecondaryIndexProps, 'projectionType' | 'nonKeyAttributes'> {
  switch (p.type) {
    case 'KEYS_ONLY':
      return { projectionType: ProjectionType.KEYS_ONLY };
    case 'INCLUDE':
      return { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...p.attributes] };
    case 'ALL':
      return { projectionType: ProjectionType.ALL };
  }
}

const TABLE_READ = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];
const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/**
 * Data access to one table and each of its named indexes: the table's grantReadData and
 * grantReadWriteData allow `<table>/index/*`, every index that may ever exist; this names the
 * ones the contract defines (lambdas/contract/tables.ts), so a new index needs a new grant.
 */
export function tableAccess(table: Table, def: TableDefinition, access: 'read' | 'readWrite'): PolicyStatement {
  return new PolicyStatement({
    actions: access === 'read' ? TABLE_READ : [...TABLE_READ, ...TABLE_WRITE],
    resources: [table.tableArn, ...def.indexes.map((i) => `${table.tableArn}/index/${i.name}`)],
  });
}
