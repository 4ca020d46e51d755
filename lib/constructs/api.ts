import { RemovalPolicy, Validations, type Stack } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, type CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { FALLBACK_DOMAIN, ROUTES, type Domain } from '../../lambdas/contract/routes';
import type { EdgeConfig } from '../deploy-config';
import type { Manifest } from '../domain-infra';
import { DomainFunction, domainPartId } from './domain-function';
import { readsSecret, type Provision } from './grants';

/**
 * One function per domain that has routes (`<Domain>Function`), with its manifest's grants; each
 * serves only requests that carry the origin secret, and the domains that start confirmation
 * loops may start the state machine's executions.
 */
export function addApiFunctions(
  stack: Stack,
  props: {
    manifests: readonly Manifest[];
    environment: Record<string, string>;
    provision: Provision;
    originSecret: Secret;
    confirmation: StateMachine | undefined;
  },
): ReadonlyMap<Domain, DomainFunction> {
  const functions = new Map<Domain, DomainFunction>();
  for (const { domain, infra } of props.manifests) {
    const fn = new DomainFunction(stack, domainPartId(domain, 'Function'), {
      domain,
      environment: props.environment,
      data: infra.data ?? ['catalog'],
    });
    props.provision(fn, infra);
    // Every API function serves only requests that carry the origin secret: its ARN, and read access to it alone.
    readsSecret(fn, props.originSecret, INFRA_ENV.originSecretArn);
    if (infra.startsConfirmations && props.confirmation) {
      fn.fn.addEnvironment(INFRA_ENV.confirmationStateMachineArn, props.confirmation.stateMachineArn);
      props.confirmation.grantStartExecution(fn.fn);
    }
    functions.set(domain, fn);
  }
  return functions;
}

/**
 * The HTTP API: a route per entry of the route table to its domain's live alias, everything else
 * to the fallback domain's JSON answers; its stage throttled and access-logged.
 */
export function addHttpApi(
  stack: Stack,
  props: { functions: ReadonlyMap<Domain, DomainFunction>; throttle: EdgeConfig['apiThrottle'] },
): HttpApi {
  const integrations = new Map(
    [...props.functions].map(([d, f]) => [d, new HttpLambdaIntegration(domainPartId(d, 'Integration'), f.live)]),
  );
  const api = new HttpApi(stack, 'Api', {
    description: 'Agent skill marketplace API',
    // Unknown paths, wrong methods and CORS preflights reach the fallback domain's JSON answers.
    defaultIntegration: integrations.get(FALLBACK_DOMAIN)!,
  });
  for (const route of ROUTES) {
    api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: integrations.get(route.domain)! });
  }
  // Every route and the catch-all are public by design (docs/SECURITY.md): authorization is in the functions.
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      "A public marketplace: agents buy without accounts. A pack is authorized by an on-chain transfer the function verifies, re-access by a license token (JWS) or the paying wallet's signature, every write by an EIP-712 signature; per-caller rate limits run in the functions and stage throttling in API Gateway.",
  });
  const accessLogs = new LogGroup(stack, 'ApiAccessLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
  const stage = api.defaultStage!.node.defaultChild as CfnStage;
  // The stage throttles every route (-c apiRateLimit, -c apiBurstLimit): the spec allows abuse to be throttled at the edge.
  stage.defaultRouteSettings = { throttlingRateLimit: props.throttle.rateLimit, throttlingBurstLimit: props.throttle.burstLimit };
  stage.accessLogSettings = {
    destinationArn: accessLogs.logGroupArn,
    format: JSON.stringify({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latencyMs: '$context.responseLatency',
      integrationError: '$context.integrationErrorMessage',
      ip: '$context.identity.sourceIp',
      time: '$context.requestTime',
    }),
  };
  return api;
}
