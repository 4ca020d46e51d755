import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * Requests from one IP per five minutes above which the edge answers 429 itself. Far above what
 * the functions' per-caller limits allow a legitimate buyer (300 unlock attempts a minute), so
 * it stops floods before they reach API Gateway and Lambda, not buyers.
 */
export const WAF_RATE_LIMIT_PER_5_MIN = 3000;

/** The spec's failure body for the edge's own answers: JSON, never an HTML page under /api/*. */
const failure = (code: string, message: string, retry: boolean, tip: string): string =>
  JSON.stringify({ ok: false, error: code.toLowerCase(), error_code: code, message, retry, tip });

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/** Labels the AWS managed groups add to a request they match (their namespaces). */
const CORE = 'awswaf:managed:aws:core-rule-set:';
const BAD_INPUTS = 'awswaf:managed:aws:known-bad-inputs:';

/**
 * The marketplace's CloudFront web ACL (scope CLOUDFRONT, so it must be created in us-east-1).
 * AWS's core rule set and known-bad-inputs group run in count mode and only label a request; one
 * rule of ours blocks what they labelled, with the spec's JSON body (a managed group's own block
 * would answer CloudFront's HTML page), except the core set's 8 KB body-size label (the functions
 * take bodies up to 64 KiB and refuse larger ones themselves). A rate-based rule per IP answers 429.
 */
export class EdgeWebAcl extends Construct {
  readonly arn: string;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const acl = new CfnWebACL(this, 'Acl', {
      scope: 'CLOUDFRONT',
      description: 'skill-market edge: AWS core and known-bad-inputs rules, and a rate limit per IP',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('skill-market-edge'),
      customResponseBodies: {
        blocked: {
          contentType: 'APPLICATION_JSON',
          content: failure(
            'REQUEST_BLOCKED',
            'The edge refused this request: it matched a rule against common attacks.',
            false,
            'Send the request without the pattern that matched (e.g. markup or a path traversal in a parameter); if it is a legitimate request, report it with the time and x-amz-cf-id.',
          ),
        },
        'rate-limited': {
          contentType: 'APPLICATION_JSON',
          content: failure(
            'RATE_LIMITED',
            `More than ${WAF_RATE_LIMIT_PER_5_MIN} requests from this address in five minutes.`,
            true,
            'Wait for Retry-After seconds, then slow down.',
          ),
        },
      },
      rules: [
        {
          name: 'aws-core-rule-set',
          priority: 0,
          overrideAction: { count: {} },
          statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesCommonRuleSet' } },
          visibilityConfig: visibility('aws-core-rule-set'),
        },
        {
          name: 'aws-known-bad-inputs',
          priority: 1,
          overrideAction: { count: {} },
          statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesKnownBadInputsRuleSet' } },
          visibilityConfig: visibility('aws-known-bad-inputs'),
        },
        {
          name: 'block-what-the-managed-groups-matched',
          priority: 2,
          action: { block: { customResponse: { responseCode: 403, customResponseBodyKey: 'blocked' } } },
          statement: {
            andStatement: {
              statements: [
                {
                  orStatement: {
                    statements: [
                      { labelMatchStatement: { scope: 'NAMESPACE', key: CORE } },
                      { labelMatchStatement: { scope: 'NAMESPACE', key: BAD_INPUTS } },
                    ],
                  },
                },
                { notStatement: { statement: { labelMatchStatement: { scope: 'LABEL', key: `${CORE}SizeRestrictions_Body` } } } },
              ],
            },
          },
          visibilityConfig: visibility('blocked-by-managed-rules'),
        },
        {
          name: 'rate-per-ip',
          priority: 3,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'rate-limited',
                responseHeaders: [{ name: 'retry-after', value: '300' }],
              },
            },
          },
          statement: { rateBasedStatement: { limit: WAF_RATE_LIMIT_PER_5_MIN, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
          visibilityConfig: visibility('rate-per-ip'),
        },
      ],
    });
    this.arn = acl.attrArn;
  }
}

/**
 * The web ACL in a stack of its own in us-east-1, for a marketplace deployed in another region
 * (bin/app.ts): CloudFront takes only a web ACL created in us-east-1. The marketplace stack reads
 * its ARN through a cross-region reference.
 */
export class EdgeStack extends Stack {
  readonly webAclArn: string;

  constructor(scope: Construct, id: string, props: StackProps) {
    super(scope, id, props);
    this.webAclArn = new EdgeWebAcl(this, 'Waf').arn;
    new CfnOutput(this, 'WebAclArn', { value: this.webAclArn, description: 'The CloudFront web ACL of the marketplace' });
  }
}
