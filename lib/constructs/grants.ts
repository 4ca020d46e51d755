import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { INFRA_ENV } from '../../lambdas/contract/env';
import type { DomainInfra } from '../../lambdas/contract/infra';
import { TABLES } from '../../lambdas/contract/tables';
import type { DomainFunction } from './domain-function';
import type { StackSecrets } from './secrets';
import { tableAccess } from './tables';
import { readsPackVersions } from './versions-bucket';

/** The environment and grants a manifest asks for, applied to one function. */
export type Provision = (fn: DomainFunction, infra: DomainInfra) => void;

/**
 * How a function gets what its domain's manifest asks for (lambdas/contract/infra.ts): the
 * base URL parameter's read (unless a base URL is configured), its tables with the access it
 * names, the secrets and keys it uses, each with its ARN in the function's environment, and a read
 * of the pack versions by key.
 * Least privilege: nothing a manifest does not name.
 */
export function provisioner(props: {
  /** The SSM parameter with the advertised base URL, or undefined when one is configured. */
  baseUrlParameterArn: string | undefined;
  tables: ReadonlyMap<string, Table>;
  secrets: StackSecrets;
  /** The write-once versions bucket, if any manifest reads or publishes pack versions. */
  versionsBucket: Bucket | undefined;
}): Provision {
  const { tables, secrets } = props;
  return (fn, infra) => {
    if (props.baseUrlParameterArn)
      fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [props.baseUrlParameterArn] }));
    for (const { table, access } of infra.tables) {
      const t = tables.get(table);
      if (!t) throw new Error(`A domain manifest names an unknown table: ${table}`);
      if (access === 'describe')
        fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:DescribeTable'], resources: [t.tableArn] }));
      else
        fn.fn.addToRolePolicy(
          tableAccess(
            t,
            TABLES.find((d) => d.logicalName === table)!,
            access,
          ),
        );
    }
    if (infra.describesAllTables) {
      const others = [...tables].filter(([name]) => !infra.tables.some((t) => t.table === name)).map(([, t]) => t.tableArn);
      if (others.length > 0) fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:DescribeTable'], resources: others }));
    }
    if (infra.licenseKey && secrets.licenseSecret) readsSecret(fn, secrets.licenseSecret, INFRA_ENV.licenseSecretArn);
    if (infra.readsChain && secrets.rpcSecret) readsSecret(fn, secrets.rpcSecret, INFRA_ENV.rpcSecretArn);
    if (infra.stripeKeys && secrets.stripeSecret) readsSecret(fn, secrets.stripeSecret, INFRA_ENV.stripeSecretArn);
    if (infra.signsWithServiceKey && secrets.serviceKey) signsWith(fn, secrets.serviceKey, INFRA_ENV.serviceKeyKmsKeyId);
    if (infra.relaysPayments && secrets.relayerKeys.length > 0) signsWithPool(fn, secrets.relayerKeys, INFRA_ENV.relayerKmsKeyIds);
    // The escrow operator: whoever settles signs with it too (auth-capture's authorize, then the
    // capture or void, and a refund); whoever only names it in an offer reads its public key.
    if (secrets.escrowOperatorKey) {
      if (infra.relaysPayments) signsWith(fn, secrets.escrowOperatorKey, INFRA_ENV.escrowOperatorKmsKeyId);
      else if (infra.readsEscrowOperatorAddress) readsPublicKey(fn, secrets.escrowOperatorKey, INFRA_ENV.escrowOperatorKmsKeyId);
    }
    if (infra.packVersions === 'read' && props.versionsBucket) readsPackVersions(fn, props.versionsBucket);
  };
}

/** A function that signs with any key of a pool (the relayer's): their ids in `envName`, comma-separated, and kms:Sign and kms:GetPublicKey on them only. */
function signsWithPool(fn: DomainFunction, keys: readonly Key[], envName: string): void {
  fn.fn.addEnvironment(envName, keys.map((k) => k.keyArn).join(','));
  fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Sign', 'kms:GetPublicKey'], resources: keys.map((k) => k.keyArn) }));
}

/** A function that reads the public keys of a pool only (addresses, never a signature): their ids in `envName`, and kms:GetPublicKey on them. */
export function readsPoolPublicKeys(fn: DomainFunction, keys: readonly Key[], envName: string): void {
  fn.fn.addEnvironment(envName, keys.map((k) => k.keyArn).join(','));
  fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:GetPublicKey'], resources: keys.map((k) => k.keyArn) }));
}

/** A function that reads the public key of `key` only (an address, never a signature): its id in `envName`, and kms:GetPublicKey on it. */
export function readsPublicKey(fn: DomainFunction, key: Key, envName: string): void {
  readsPoolPublicKeys(fn, [key], envName);
}

/** A function that reads `secret`: its ARN in `envName`, and read access to it only. */
export function readsSecret(fn: DomainFunction, secret: Secret, envName: string): void {
  fn.fn.addEnvironment(envName, secret.secretArn);
  secret.grantRead(fn.fn);
}

/** A function that signs with `key`: its id in `envName`, and kms:Sign and kms:GetPublicKey on it only. */
function signsWith(fn: DomainFunction, key: Key, envName: string): void {
  fn.fn.addEnvironment(envName, key.keyArn);
  fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Sign', 'kms:GetPublicKey'], resources: [key.keyArn] }));
}
