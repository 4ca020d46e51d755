/**
 * Starts the real local parts once for the whole run: DynamoDB Local (in memory), anvil with the
 * test tokens, and the edge server, all on free ports. Tests reach them through inject().
 */
import type { TestProject } from 'vitest/node';
import { buildSite } from '../../catalog/build';
import { startStack, type RunningStack } from '../../local/stack';
import { links } from '../../lambdas/contract/links';
import { SECRET_SETTINGS, SETTINGS } from '../../lambdas/contract/settings';
import { missingBrowserLine } from './chromium';
import { startStripeStandIn, type StripeStandIn } from './stripe-stand-in';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    rpcUrl: string;
    dynamoEndpoint: string;
    usdc: string;
    usdbc: string;
    treasury: string;
    legacyTreasury: string;
    /** The local ERC-8004 registry's test agent: its id and owner. */
    testAgentId: string;
    testAgentOwner: string;
    /** The Stripe stand-in the stack's card checkout talks to, and its webhook signing secret. */
    stripeBase: string;
    stripeWebhookSecret: string;
  }
}

let stack: RunningStack | undefined;
let stripe: StripeStandIn | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Said first, in one line, so a run on a machine without Chromium is not read as all green.
  const noBrowser = missingBrowserLine();
  if (noBrowser) console.warn(noBrowser);
  process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  await buildSite();
  // Card checkout on, against the stand-in (the real SDK, a loopback server); the handlers read these variables.
  stripe = await startStripeStandIn();
  process.env[SECRET_SETTINGS.stripeSecretKey.env] = stripe.secretKey;
  process.env[SECRET_SETTINGS.stripeWebhookSecret.env] = stripe.webhookSecret;
  process.env[SETTINGS.stripeApiBase.env] = stripe.base;
  stack = await startStack({ port: 0, anvilPort: 0, dynamoPort: 0, dataDir: undefined, env: {} });
  project.provide('baseUrl', stack.baseUrl);
  project.provide('rpcUrl', stack.rpcUrls[0]!);
  project.provide('dynamoEndpoint', stack.dynamoEndpoint);
  project.provide('usdc', stack.tokens.USDC!);
  project.provide('usdbc', stack.tokens.USDbC!);
  project.provide('treasury', stack.treasury!);
  project.provide('legacyTreasury', stack.legacyTreasury!);
  project.provide('testAgentId', stack.identity!.testAgent.agentId.toString());
  project.provide('testAgentOwner', stack.identity!.testAgent.owner);
  stripe.setWebhookUrl(links(stack.baseUrl).stripe_webhook);
  project.provide('stripeBase', stripe.base);
  project.provide('stripeWebhookSecret', stripe.webhookSecret);
  return async () => {
    await stack?.stop();
    await stripe?.close();
  };
}
