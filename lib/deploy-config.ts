import type { Construct } from 'constructs';
import { getAddress, isAddress } from 'viem';
import { isEmail } from '../lambdas/contract/email';
import { OPERATOR_SETTINGS, readOperator, type OperatorReading, type OperatorSettingName } from '../lambdas/contract/operator';
import { readMarketConfig, SETTINGS, type AddressCodec, type MarketConfig, type SettingName } from '../lambdas/contract/settings';
import type { Stage } from '../lambdas/contract/networks';

/** EIP-55 checks for the synth: the same rules the Lambdas apply (contract/settings.ts). */
const addressCodec: AddressCodec = { isValid: (v) => isAddress(v, { strict: true }), checksum: (v) => getAddress(v) };

/**
 * Whether a JSON-RPC URL carries a credential: a user or password, a query string, or a path
 * segment that looks like a key (16 or more letters, digits, `-` or `_`, with a digit among them),
 * as Alchemy (`/v2/<key>`), Infura (`/v3/<key>`) and QuickNode (`/<token>/`) spell theirs. A
 * public provider's short path (`https://1rpc.io/base`) passes.
 */
export function carriesKey(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username !== '' || u.password !== '' || u.search !== '') return true;
  return u.pathname.split('/').some((segment) => /^[A-Za-z0-9_-]{16,}$/.test(segment) && /\d/.test(segment));
}

/**
 * Reads the deployment settings from CDK context (`-c treasury=0x…` or cdk.json) and
 * validates them with the same rules the Lambdas use. Any problem fails the synth with
 * every problem listed. The treasury alone may be left for deploy time (a CloudFormation
 * parameter), so a plain `cdk synth` gives a deployable template that cannot deploy without it.
 */
/** A configuration the synth refuses; bin/app.ts prints its message without a stack trace. */
export class DeployConfigError extends Error {}

export function readDeployConfig(scope: Construct): MarketConfig {
  const raw: Partial<Record<SettingName, string>> = {};
  for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][]) {
    const v: unknown = scope.node.tryGetContext(spec.context);
    if (v !== undefined && v !== null) raw[name] = Array.isArray(v) ? v.join(',') : String(v);
  }
  const { config, problems } = readMarketConfig(raw, { requireTreasury: false }, addressCodec);
  for (const url of config.rpcUrls.filter(carriesKey)) {
    problems.push(
      `rpcUrls has a URL that carries a credential (host ${new URL(url).host}): context is written into the template and the functions' environment in clear. Put keyed URLs in the RPC secret (stack output RpcSecretArn, docs/OPERATIONS.md) and keep rpcUrls for public providers.`,
    );
  }
  if (problems.length > 0) {
    throw new DeployConfigError(`Invalid deployment configuration (CDK context):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return config;
}

/**
 * Reads who runs the store from CDK context (`-c operatorLegalName=…`, lambdas/contract/operator.ts):
 * bin/app.ts renders the terms, privacy, refund and contact pages with it, and the stack refuses a
 * deploy while any is a placeholder. A given value that breaks its rule fails the synth.
 */
export function readOperatorConfig(scope: Construct): OperatorReading {
  const raw: Partial<Record<OperatorSettingName, string>> = {};
  for (const [name, spec] of Object.entries(OPERATOR_SETTINGS) as [
    OperatorSettingName,
    (typeof OPERATOR_SETTINGS)[OperatorSettingName],
  ][]) {
    const v: unknown = scope.node.tryGetContext(spec.context);
    if (v !== undefined && v !== null) raw[name] = String(v);
  }
  const reading = readOperator(raw);
  if (reading.problems.length > 0)
    throw new DeployConfigError(`Invalid operator settings (CDK context):\n${reading.problems.map((p) => `  - ${p}`).join('\n')}`);
  return reading;
}

/** What the edge takes from CDK context beyond the settings: a custom domain, and an existing web ACL. */
export interface EdgeConfig {
  /** e.g. skills.example.com; with it CloudFront serves that name with TLSv1.2_2021 at least. */
  domainName: string | undefined;
  /** ACM certificate for domainName, in us-east-1 (CloudFront reads certificates only there). */
  certificateArn: string | undefined;
  /** An existing CloudFront-scope web ACL to attach instead of creating one. */
  webAclArn: string | undefined;
  /** API Gateway stage throttling (`-c apiRateLimit`, `-c apiBurstLimit`): requests per second, and the burst above it. */
  apiThrottle: { rateLimit: number; burstLimit: number };
}

/** The stage's default throttling: what one region's share of the shop needs, far under the account's 10,000 requests/s. */
export const API_THROTTLE_DEFAULT = { rateLimit: 100, burstLimit: 200 } as const;

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ACM_US_EAST_1 = /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/;
const CLOUDFRONT_WEB_ACL = /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[A-Za-z0-9_-]{1,128}\/[0-9a-f-]{36}$/;

/** Reads and checks the edge's context keys; any problem fails the synth with every problem listed. */
export function readEdgeConfig(scope: Construct): EdgeConfig {
  const read = (key: string): string | undefined => {
    const v: unknown = scope.node.tryGetContext(key);
    return v === undefined || v === null || String(v).trim() === '' ? undefined : String(v).trim();
  };
  const problems: string[] = [];
  const whole = (key: string, fallback: number, max: number): number => {
    const raw = read(key);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= 1 && n <= max) return n;
    problems.push(`${key} must be a whole number from 1 to ${max}, got "${raw}"`);
    return fallback;
  };
  const config: EdgeConfig = {
    domainName: read('domainName'),
    certificateArn: read('certificateArn'),
    webAclArn: read('webAclArn'),
    // API Gateway's account quotas: 10,000 requests/s, a burst of 5,000.
    apiThrottle: {
      rateLimit: whole('apiRateLimit', API_THROTTLE_DEFAULT.rateLimit, 10_000),
      burstLimit: whole('apiBurstLimit', API_THROTTLE_DEFAULT.burstLimit, 5_000),
    },
  };
  if ((config.domainName === undefined) !== (config.certificateArn === undefined))
    problems.push('domainName and certificateArn go together: a custom domain needs its ACM certificate, and a certificate its domain.');
  if (config.domainName !== undefined && !DOMAIN.test(config.domainName))
    problems.push(`domainName is not a lower-case DNS name: "${config.domainName}"`);
  if (config.certificateArn !== undefined && !ACM_US_EAST_1.test(config.certificateArn))
    problems.push(
      `certificateArn must be an ACM certificate in us-east-1 (CloudFront reads certificates only there): "${config.certificateArn}"`,
    );
  if (config.webAclArn !== undefined && !CLOUDFRONT_WEB_ACL.test(config.webAclArn))
    problems.push(`webAclArn must be a CloudFront-scope (global) WAFv2 web ACL in us-east-1: "${config.webAclArn}"`);
  if (problems.length > 0)
    throw new DeployConfigError(`Invalid deployment configuration (CDK context):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return config;
}

/** Who hears the alarms, and what the account may spend a month before someone is told. */
export interface OperationsConfig {
  /** `-c alarmEmail=ops@example.com`: subscribed to the alarm topic (AWS mails a confirmation link first). */
  alarmEmail: string | undefined;
  /** `-c monthlyBudgetUsd=…`: the AWS Budgets cost budget; the alarm topic hears at 80 % spent and at 100 % forecast. */
  monthlyBudgetUsd: number;
}

/**
 * The default monthly budget: about two and a half times the stack's fixed cost counted from the
 * template (docs/OPERATIONS.md, "What it costs": $19.00 a month), so a quiet shop stays under it and
 * a surprise (a runaway loop, a flood of requests the WAF lets through) crosses it within the month.
 */
export const MONTHLY_BUDGET_DEFAULT_USD = 50;

export function readOperationsConfig(scope: Construct): OperationsConfig {
  const read = (key: string): string | undefined => {
    const v: unknown = scope.node.tryGetContext(key);
    return v === undefined || v === null || String(v).trim() === '' ? undefined : String(v).trim();
  };
  const problems: string[] = [];
  const alarmEmail = read('alarmEmail');
  if (alarmEmail !== undefined && !isEmail(alarmEmail)) problems.push(`alarmEmail is not an email address: "${alarmEmail}"`);
  const budget = read('monthlyBudgetUsd');
  const monthlyBudgetUsd = budget === undefined ? MONTHLY_BUDGET_DEFAULT_USD : Number(budget);
  if (!Number.isInteger(monthlyBudgetUsd) || monthlyBudgetUsd < 1)
    problems.push(`monthlyBudgetUsd must be a whole number of US dollars, 1 or more, got "${budget ?? ''}"`);
  if (problems.length > 0)
    throw new DeployConfigError(`Invalid deployment configuration (CDK context):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return { alarmEmail, monthlyBudgetUsd };
}

/** Context key: how many days Object Lock (COMPLIANCE) keeps each pack version the deploy publishes. */
export const VERSION_RETENTION_CONTEXT = 'versionRetentionDays';
/**
 * Ten years: longer than any license a version is sold under is expected to be used, and a
 * version costs a few kilobytes of storage a year. Nobody, the account's root user included, can
 * delete a version or shorten its retention before it ends (docs/OPERATIONS.md, "Pack versions").
 */
export const VERSION_RETENTION_DEFAULT_DAYS = 3650;
/** S3 Object Lock's longest default retention: 100 years. */
export const VERSION_RETENTION_MAX_DAYS = 36_500;

/**
 * The versions bucket's default retention in days (context `versionRetentionDays`, a whole number
 * from 1 to 36,500; default {@link VERSION_RETENTION_DEFAULT_DAYS}). A bad value fails the synth.
 */
export function readVersionRetentionDays(scope: Construct): number {
  const v: unknown = scope.node.tryGetContext(VERSION_RETENTION_CONTEXT);
  const raw = v === undefined || v === null || String(v).trim() === '' ? undefined : String(v).trim();
  if (raw === undefined) return VERSION_RETENTION_DEFAULT_DAYS;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < 1 || n > VERSION_RETENTION_MAX_DAYS)
    throw new DeployConfigError(
      `Invalid deployment configuration (CDK context):\n  - ${VERSION_RETENTION_CONTEXT} must be a whole number of days from 1 to ${VERSION_RETENTION_MAX_DAYS}, got "${raw}"`,
    );
  return n;
}

/** Context key that turns the synthetic purchase's schedule on or off (`on` | `off`). */
export const SYNTHETIC_PURCHASE_CONTEXT = 'syntheticPurchase';

/**
 * Whether the synthetic purchase runs on its schedule: context `syntheticPurchase` (`on` | `off`),
 * by default on in staging and off in production (each run buys the canary: its price and a
 * transfer's gas). The function exists either way, for the pipeline's post-deploy check. `stage` is
 * the checked `stage` setting (contract/settings.ts).
 */
export function syntheticPurchaseScheduled(scope: Construct, stage: Stage): boolean {
  const v: unknown = scope.node.tryGetContext(SYNTHETIC_PURCHASE_CONTEXT);
  const setting = v === undefined || v === null || String(v).trim() === '' ? undefined : String(v).trim();
  if (setting === undefined) return stage === 'staging';
  if (setting !== 'on' && setting !== 'off')
    throw new DeployConfigError(
      `Invalid deployment configuration (CDK context):\n  - ${SYNTHETIC_PURCHASE_CONTEXT} must be on or off, got "${setting}"`,
    );
  return setting === 'on';
}

/** The two stages the pipeline deploys, in order, with the chain each runs against (context `stage`, `network`). */
export const PIPELINE_STAGES = {
  staging: { id: 'Staging', stage: 'staging', network: 'base-sepolia' },
  production: { id: 'Production', stage: 'production', network: 'base' },
} as const;
export type PipelineStageName = keyof typeof PIPELINE_STAGES;

/** A stage's own settings: context keys set on its Stage before its stacks exist, and where it deploys. */
export interface PipelineStageConfig {
  /** Context for the stage's stacks (`treasury`, `rpcUrls`, `alarmEmail`, …): it overrides the app's. */
  readonly context: Readonly<Record<string, string | number | boolean | string[]>>;
  readonly account: string | undefined;
  readonly region: string | undefined;
}

/** What `-c pipeline=on` builds: the source, and each stage's settings (docs/OPERATIONS.md, "The pipeline"). */
export interface PipelineConfig {
  /** `owner/name` of the repository the connection reads. */
  readonly repo: string;
  readonly branch: string;
  /** A CodeConnections (or CodeStar Connections) connection to the repository's host, made once in the console. */
  readonly connectionArn: string;
  readonly stages: Readonly<Record<PipelineStageName, PipelineStageConfig>>;
}

/** The context keys of the pipeline itself; the synth step passes them again, so the pipeline rebuilds itself as it is. */
export const PIPELINE_CONTEXT_KEYS = ['pipelineRepo', 'pipelineBranch', 'pipelineConnectionArn', 'staging', 'production'] as const;

/**
 * The keys a stage's object may hold: the settings, the edge's and the alarms' keys, the stack's
 * name, and where it deploys. Not `stage` nor `network` (the pipeline sets them), nor the operator's
 * keys (the site is built once for both stages, from the app's context).
 */
const STAGE_KEYS = new Set<string>([
  ...Object.values(SETTINGS)
    .map((s) => s.context)
    .filter((key) => key !== SETTINGS.stage.context && key !== SETTINGS.network.context),
  'domainName',
  'certificateArn',
  'webAclArn',
  'apiRateLimit',
  'apiBurstLimit',
  'alarmEmail',
  'monthlyBudgetUsd',
  VERSION_RETENTION_CONTEXT,
  'stackName',
  'account',
  'region',
]);

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
// A git branch name, as far as a build command needs it: no spaces, no `..`, no leading `-`.
const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;
const CONNECTION = /^arn:aws[a-z-]*:(codeconnections|codestar-connections):[a-z0-9-]+:\d{12}:connection\/[0-9a-f-]{36}$/;
const ACCOUNT = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** Whether the app is asked for the pipeline (`-c pipeline=on`); without it the app is what it always was. */
export function wantsPipeline(scope: Construct): boolean {
  const v: unknown = scope.node.tryGetContext('pipeline');
  return v === true || v === 'on' || v === 'true';
}

/**
 * Reads the pipeline's context: the source (`pipelineRepo`, `pipelineBranch`, `pipelineConnectionArn`)
 * and an object of settings per stage (`staging`, `production`: in cdk.json, or `-c staging='{…}'`
 * as JSON). `pipelineAccount` is the account the pipeline deploys to (the CLI's); staging deploys
 * there too, as the post-deploy purchase invokes its function from the pipeline's account. Every
 * problem is listed at once.
 */
export function readPipelineConfig(scope: Construct, pipelineAccount: string | undefined): PipelineConfig {
  const problems: string[] = [];
  const read = (key: string): string | undefined => {
    const v: unknown = scope.node.tryGetContext(key);
    return v === undefined || v === null || String(v).trim() === '' ? undefined : String(v).trim();
  };
  const repo = read('pipelineRepo') ?? '';
  if (!REPO.test(repo)) problems.push(`pipelineRepo must be the repository as owner/name, got "${repo}"`);
  const branch = read('pipelineBranch') ?? 'main';
  if (!BRANCH.test(branch)) problems.push(`pipelineBranch is not a branch name: "${branch}"`);
  const connectionArn = read('pipelineConnectionArn') ?? '';
  if (!CONNECTION.test(connectionArn))
    problems.push(
      `pipelineConnectionArn must be a CodeConnections connection's ARN (arn:aws:codeconnections:<region>:<account>:connection/<id>), got "${connectionArn}"`,
    );

  const stage = (name: PipelineStageName): PipelineStageConfig => {
    let raw: unknown = scope.node.tryGetContext(name);
    if (typeof raw === 'string') {
      try {
        raw = JSON.parse(raw);
      } catch {
        problems.push(`${name} must be a JSON object of settings, e.g. {"treasury":"0x…"}`);
        raw = {};
      }
    }
    if (raw === undefined || raw === null) raw = {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`${name} must be an object of settings, e.g. {"treasury":"0x…"}`);
      raw = {};
    }
    const context: Record<string, string | number | boolean | string[]> = {};
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      if (!STAGE_KEYS.has(key)) {
        problems.push(
          key === 'stage' || key === 'network'
            ? `${name}.${key}: the pipeline sets it (${name} is stage "${PIPELINE_STAGES[name].stage}" on network "${PIPELINE_STAGES[name].network}")`
            : `${name}.${key} is not a setting a stage takes (${[...STAGE_KEYS].join(', ')})`,
        );
      } else if (
        typeof value === 'string' ||
        typeof value === 'number' ||
        typeof value === 'boolean' ||
        (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      ) {
        context[key] = value as string | number | boolean | string[];
      } else problems.push(`${name}.${key} must be a string, a number or a boolean`);
    }
    const { account, region, ...settings } = context;
    if (account !== undefined && !ACCOUNT.test(String(account)))
      problems.push(`${name}.account must be 12 digits, got "${String(account)}"`);
    if (region !== undefined && !REGION.test(String(region))) problems.push(`${name}.region is not an AWS region: "${String(region)}"`);
    // A pipeline passes no CloudFormation parameters: the treasury must be known at synth.
    if (settings['treasury'] === undefined && read('treasury') === undefined)
      problems.push(`${name}.treasury is required: a pipeline cannot give the TreasuryAddress parameter at deploy time`);
    return {
      context: settings,
      account: account === undefined ? undefined : String(account),
      region: region === undefined ? undefined : String(region),
    };
  };
  const staging = stage('staging');
  const production = stage('production');
  if (staging.account !== undefined && staging.account !== pipelineAccount)
    problems.push(
      `staging.account: staging deploys to the pipeline's account (${pipelineAccount ?? 'the CLI account'}), where the post-deploy purchase invokes its function; leave it out`,
    );
  if (problems.length > 0)
    throw new DeployConfigError(`Invalid pipeline configuration (CDK context):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return { repo, branch, connectionArn, stages: { staging, production } };
}
