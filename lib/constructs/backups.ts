import { Duration, RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { TABLES } from '../../lambdas/contract/tables';

/** How long each kind of recovery point is kept: a daily one for five weeks, a monthly one for a year and a month (a year's close, and its audit). */
export const BACKUP_RETENTION = { daily: Duration.days(35), monthly: Duration.days(400) } as const;

/**
 * AWS Backup of the tables that hold money facts (the contract's retained ones: the ledger, card
 * sales, settlements, subscriptions, …): a daily and a monthly recovery point in a vault of their
 * own, retained with the tables. Point-in-time recovery already covers 35 days of any table; these
 * are copies that outlive a table deleted by mistake or a bad write found after PITR's window.
 * Made in the stack's own scope so the ids are the deployed ones.
 */
export function addBackups(stack: Stack, tables: ReadonlyMap<string, Table>): BackupPlan {
  const vault = new BackupVault(stack, 'MoneyTablesVault', {
    backupVaultName: `skill-market-${stack.stackName}`,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const plan = new BackupPlan(stack, 'MoneyTablesBackup', {
    backupPlanName: `skill-market-${stack.stackName}`,
    backupVault: vault,
    backupPlanRules: [
      new BackupPlanRule({
        ruleName: 'Daily',
        scheduleExpression: Schedule.cron({ hour: '4', minute: '0' }),
        deleteAfter: BACKUP_RETENTION.daily,
      }),
      new BackupPlanRule({
        ruleName: 'Monthly',
        scheduleExpression: Schedule.cron({ day: '1', hour: '5', minute: '0' }),
        deleteAfter: BACKUP_RETENTION.monthly,
      }),
    ],
  });
  const selection = plan.addSelection('MoneyTables', {
    resources: TABLES.filter((t) => t.retain).map((t) => BackupResource.fromDynamoDbTable(tables.get(t.logicalName)!)),
  });
  Validations.of(selection.node.findChild('Role')).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
    reason:
      "AWS Backup's documented service role policy for backup jobs, kept current by AWS as services are added; the role is assumable by AWS Backup only, and the selection names the retained tables alone.",
  });
  return plan;
}
