import { Duration, type Stack } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { INFRA_ENV } from '../../lambdas/contract/env';
import type { Manifest } from '../domain-infra';
import { DomainFunction } from './domain-function';

/**
 * The license key rotates every few months (Secrets Manager runs the owner domain's rotation
 * entry); tokens name their key, and the previous key still verifies (docs/OPERATIONS.md).
 * Nothing without a license secret or a domain that owns its rotation.
 */
export function addLicenseKeyRotation(
  stack: Stack,
  props: { manifests: readonly Manifest[]; licenseSecret: Secret | undefined; environment: Record<string, string> },
): DomainFunction | undefined {
  const owner = props.manifests.find((m) => m.infra.licenseKeyRotation !== undefined);
  if (!props.licenseSecret || !owner) return undefined;
  const rotation = owner.infra.licenseKeyRotation!;
  const fn = new DomainFunction(stack, 'LicenseKeyRotation', {
    domain: owner.domain,
    entryFile: rotation.entry,
    environment: props.environment,
    invokedBy: 'secrets-manager',
  });
  props.licenseSecret.addRotationSchedule('Rotation', { rotationLambda: fn.live, automaticallyAfter: Duration.days(rotation.everyDays) });
  return fn;
}

/**
 * The origin secret rotates: Secrets Manager runs the owner domain's rotation entry, which puts
 * the new value in this distribution's origin header; it may update only this distribution,
 * and read and write only this secret (the rotation schedule's grant).
 */
export function addOriginSecretRotation(
  stack: Stack,
  props: {
    manifests: readonly Manifest[];
    originSecret: Secret;
    distribution: Distribution;
    webAclArn: string;
    environment: Record<string, string>;
  },
): DomainFunction {
  const owner = props.manifests.find((m) => m.infra.originSecretRotation !== undefined);
  if (!owner) throw new Error('No domain manifest owns the origin secret rotation (originSecretRotation)');
  const rotation = owner.infra.originSecretRotation!;
  const fn = new DomainFunction(stack, 'OriginSecretRotation', {
    domain: owner.domain,
    entryFile: rotation.entry,
    environment: { ...props.environment, [INFRA_ENV.originDistributionId]: props.distribution.distributionId },
    // setSecret waits ORIGIN_SECRET_REFRESH_SECONDS before it updates the distribution.
    timeout: Duration.minutes(1),
    invokedBy: 'secrets-manager',
  });
  fn.fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['cloudfront:GetDistributionConfig', 'cloudfront:UpdateDistribution'],
      resources: [props.distribution.distributionArn],
    }),
  );
  // CloudFront checks that whoever sends a configuration naming a web ACL may read that ACL.
  fn.fn.addToRolePolicy(new PolicyStatement({ actions: ['wafv2:GetWebACL'], resources: [props.webAclArn] }));
  props.originSecret.addRotationSchedule('Rotation', {
    rotationLambda: fn.live,
    automaticallyAfter: Duration.days(rotation.everyDays),
  });
  return fn;
}
