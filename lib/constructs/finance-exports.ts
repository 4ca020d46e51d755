import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { CfnNamedQuery, CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { Universal } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { EXPORT_SCHEDULE_CRON, EXPORTED_TABLES, glueItemType, FINANCE_QUERIES } from '../../lambdas/contract/finance-export';

/**
 * Finance's path to the revenue rollup (docs/FINANCE.md): a daily point-in-time export of the
 * ledger and the card sales to an exports bucket, a Glue table over each export's DynamoDB JSON,
 * and an Athena workgroup with the rollup as a named query (the SQL `npm run revenue` runs on
 * the same files with DuckDB).
 *
 * Exports land under `<prefix>/<scheduled time>/AWSDynamoDB/<export id>/`: the schedule puts its
 * own scheduled time in the prefix and its execution id in ClientToken, so every day is a new
 * export and a retry of the same day's call is the same export. The Glue tables are partitioned
 * by that time with an injected projection: a query names the snapshot it reads (`snapshot = ?`),
 * so one day is never counted twice.
 */
export class FinanceExports extends Construct {
  readonly bucket: Bucket;
  readonly databaseName: string;
  readonly workGroupName: string;

  constructor(scope: Construct, id: string, props: { tables: ReadonlyMap<string, Table>; accessLogs: IBucket }) {
    super(scope, id);
    const stack = Stack.of(this);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Finance records: kept when the stack goes, and every export for thirteen months.
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(400) }, { prefix: 'athena-results/', expiration: Duration.days(30) }],
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'finance-bucket/',
    });

    for (const t of EXPORTED_TABLES) {
      const table = props.tables.get(t.table.logicalName);
      if (!table) throw new Error(`finance export of an unknown table: ${t.table.logicalName}`);
      // A role per export, so each may write only under its own prefix.
      const role = new Role(this, `${t.table.logicalName}ExportRole`, {
        assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
        description: `EventBridge Scheduler: exports ${t.table.logicalName} to s3://<exports>/${t.prefix}/`,
      });
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/${t.prefix}/*]`,
        reason: `DynamoDB names the export's objects at run time (a folder per export); writing is limited to this table's prefix ${t.prefix}/.`,
      });
      new Schedule(this, `${t.table.logicalName}Export`, {
        description: `Daily point-in-time export of ${t.table.logicalName} to s3://<exports>/${t.prefix}/ for the revenue rollup`,
        schedule: ScheduleExpression.expression(EXPORT_SCHEDULE_CRON),
        target: new Universal({
          service: 'dynamodb',
          action: 'exportTableToPointInTime',
          input: ScheduleTargetInput.fromObject({
            TableArn: table.tableArn,
            S3Bucket: this.bucket.bucketName,
            S3Prefix: `${t.prefix}/<aws.scheduler.scheduled-time>`,
            ExportFormat: 'DYNAMODB_JSON',
            ExportType: 'FULL_EXPORT',
            // Unique per execution, the same on the scheduler's own retries: never a static token.
            ClientToken: '<aws.scheduler.execution-id>',
          }),
          // Exactly what the export needs: this table's export, and writing under this prefix.
          policyStatements: [
            new PolicyStatement({ actions: ['dynamodb:ExportTableToPointInTime'], resources: [table.tableArn] }),
            new PolicyStatement({
              actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
              resources: [this.bucket.arnForObjects(`${t.prefix}/*`)],
            }),
          ],
          retryAttempts: 3,
          role,
        }),
      });
    }

    this.databaseName = `skill_market_finance_${stack.stackName.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
    const database = new CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: this.databaseName, description: 'DynamoDB exports of the skill-market ledger and card sales' },
    });
    for (const t of EXPORTED_TABLES) {
      const location = `s3://${this.bucket.bucketName}/${t.prefix}/`;
      const glueTable = new CfnTable(this, `${t.table.logicalName}ExportTable`, {
        catalogId: Aws.ACCOUNT_ID,
        databaseName: this.databaseName,
        tableInput: {
          name: t.view,
          tableType: 'EXTERNAL_TABLE',
          description: `Daily DynamoDB JSON exports of ${t.table.logicalName}; name the snapshot you read`,
          partitionKeys: [{ name: 'snapshot', type: 'string' }],
          parameters: {
            classification: 'json',
            'projection.enabled': 'true',
            'projection.snapshot.type': 'injected',
            'storage.location.template': `${location}\${snapshot}/`,
          },
          storageDescriptor: {
            location,
            columns: [{ name: 'item', type: glueItemType(t) }],
            inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
            outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
            serdeInfo: {
              serializationLibrary: 'org.openx.data.jsonserde.JsonSerDe',
              // The manifests sit beside the data; their lines have no Item and are skipped.
              parameters: { 'ignore.malformed.json': 'true', 'case.insensitive': 'true' },
            },
          },
        },
      });
      glueTable.node.addDependency(database);
    }

    this.workGroupName = `skill-market-finance-${stack.stackName}`;
    const workGroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: this.workGroupName,
      description: 'Revenue rollup over the DynamoDB exports',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        resultConfiguration: {
          outputLocation: `s3://${this.bucket.bucketName}/athena-results/`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
    for (const f of FINANCE_QUERIES) {
      const q = new CfnNamedQuery(this, f.id, {
        name: f.name,
        description: `${f.description} Run with the snapshot (the export's scheduled time, e.g. 2026-11-24T03:00:00Z) as each of its ${f.snapshotParameters} execution parameter(s).`,
        database: this.databaseName,
        workGroup: this.workGroupName,
        queryString: f.sql,
      });
      q.node.addDependency(workGroup);
      q.node.addDependency(database);
    }
  }
}
