import { CfnParameter, CfnRule, Fn, Token, type Stack } from 'aws-cdk-lib';
import { ADDRESS } from '../../lambdas/contract/chain';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { OPERATOR_SETTINGS, type OperatorReading } from '../../lambdas/contract/operator';
import { configToEnv, SETTINGS, type MarketConfig } from '../../lambdas/contract/settings';
import {
  DeployConfigError,
  readDeployConfig,
  readEdgeConfig,
  readOperatorConfig,
  readVersionRetentionDays,
  type EdgeConfig,
} from '../deploy-config';

/** What the stack is deployed with, read and checked before anything is built. */
export interface DeploySettings {
  /** The settings from context (lib/deploy-config.ts), with a custom domain as the advertised base URL. */
  readonly config: MarketConfig;
  readonly edge: EdgeConfig;
  /** Who runs the store (context `operator*`): the terms, privacy, refund and contact pages bin/app.ts renders with it. */
  readonly operator: OperatorReading;
  /** Every function's environment: the settings, then what the stack adds (tables' names, the base URL parameter). */
  readonly env: Record<string, string>;
  /** The SSM parameter that holds the CloudFront domain when no base URL is configured: its name and ARN. */
  readonly baseUrlParameter: { readonly name: string; readonly arn: string };
  /** Object Lock's default retention of each pack version, in days (context `versionRetentionDays`). */
  readonly versionRetentionDays: number;
}

/**
 * Reads the settings from context, refuses a stack that could not deploy, and leaves the treasury
 * to a deploy-time parameter when context does not give it. `webAclArn` is the ACL a us-east-1
 * edge stack made for this one (lib/marketplace-app.ts), if any.
 */
export function deploySettings(stack: Stack, webAclArn: string | undefined): DeploySettings {
  const config = readDeployConfig(stack);
  const edge = readEdgeConfig(stack);
  const versionRetentionDays = readVersionRetentionDays(stack);
  // Refused before anything is built (or bundled): the web ACL this stack would create is valid only in us-east-1.
  if (!edge.webAclArn && !webAclArn && !Token.isUnresolved(stack.region) && stack.region !== 'us-east-1')
    throw new DeployConfigError(
      `A CloudFront web ACL must be created in us-east-1, and this stack is in ${stack.region}: deploy through bin/app.ts (it adds a us-east-1 edge stack), or pass -c webAclArn=<an existing CloudFront-scope web ACL>.`,
    );
  // A custom domain is the advertised base URL unless one is configured outright.
  if (!config.publicBaseUrl && edge.domainName) config.publicBaseUrl = `https://${edge.domainName}`;
  const env = configToEnv(config);

  // The treasury may be decided at deploy time; CloudFormation then refuses a malformed or banned one.
  if (!config.treasury) {
    const treasury = new CfnParameter(stack, 'TreasuryAddress', {
      type: 'String',
      allowedPattern: ADDRESS.source,
      constraintDescription: 'must be 0x followed by 40 hex digits',
      description: SETTINGS.treasury.description,
    });
    env[SETTINGS.treasury.env] = treasury.valueAsString;
    if (config.legacyTreasury) {
      new CfnRule(stack, 'TreasuryIsNotLegacy', {
        assertions: [
          {
            assert: Fn.conditionNot(Fn.conditionEquals(Fn.ref(treasury.logicalId), config.legacyTreasury)),
            assertDescription: `TreasuryAddress must not be the banned legacy treasury ${config.legacyTreasury}`,
          },
        ],
      });
    }
  }

  const operator = readOperatorConfig(stack);
  refusePlaceholderOperator(stack, operator);

  // The advertised base URL: a configured custom domain, or the CloudFront domain written to
  // SSM once the distribution exists (lib/constructs/cdn.ts). Functions get only the parameter's
  // name, so there is no dependency cycle, and no request header can choose the URL the service
  // advertises or signs.
  const name = `/skill-market/${stack.stackName}/public-base-url`;
  if (!config.publicBaseUrl) env[INFRA_ENV.publicBaseUrlParameter] = name;
  const arn = stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: name.slice(1) });
  return { config, edge, env, operator, baseUrlParameter: { name, arn }, versionRetentionDays };
}

/**
 * The site's terms, privacy, refund and contact pages are rendered from the operator settings
 * (bin/app.ts hands the same context to the catalog build); without them they name an example
 * operator, which must never be published. `cdk synth` has to keep working without them (CI
 * synthesizes offline with no operator), so the refusal is at deploy time: a rule CloudFormation
 * evaluates before it changes anything, as TreasuryIsNotLegacy does. Its assertion reads a
 * parameter holding the context keys still unset, allowed only that value, and asserts it is
 * empty, so it fails on every deploy of this template and its message names what to set.
 */
export function refusePlaceholderOperator(stack: Stack, operator: OperatorReading): void {
  if (operator.placeholders.length === 0) return;
  const keys = operator.placeholders.map((name) => OPERATOR_SETTINGS[name].context);
  const unset = new CfnParameter(stack, 'OperatorSettingsUnset', {
    type: 'String',
    default: keys.join(','),
    allowedValues: [keys.join(',')],
    description:
      'The operator settings (CDK context) this template was synthesized without: its terms, privacy, refund and contact pages name a placeholder operator, and the rule OperatorSettingsAreSet refuses the deploy.',
  });
  new CfnRule(stack, 'OperatorSettingsAreSet', {
    assertions: [
      {
        assert: Fn.conditionEquals(Fn.ref(unset.logicalId), ''),
        assertDescription: `The site's terms, privacy, refund and contact pages would be published naming a placeholder operator. Set ${keys.map((k) => `-c ${k}=...`).join(' ')} (docs/OPERATIONS.md, "Operator settings") and deploy again.`,
      },
    ],
  });
}
