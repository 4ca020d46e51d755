import { Annotations, Aws, CfnRule, Duration, Fn, Token, Validations, type Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CacheQueryStringBehavior,
  AccessLevel,
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_FUNCTION } from '../../lambdas/contract/edge-identity';
import { API_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from '../../lambdas/contract/security-headers';
import { INDEX_REWRITE_FUNCTION } from '../../lambdas/contract/static-assets';
import { CACHE_KEY_HEADERS, FIGURES_CACHE_SECONDS } from '../../lambdas/contract/routes';
import type { EdgeConfig } from '../deploy-config';
import { EdgeWebAcl } from './edge-web-acl';
import { securityHeadersPolicy } from './security-headers-policy';

/** The distribution, the web ACL it is attached to, and the custom domain it serves, if any. */
export interface Cdn {
  readonly distribution: Distribution;
  readonly webAclArn: string;
  readonly customDomain: { readonly name: string; readonly certificateArn: string } | undefined;
}

/**
 * CloudFront, the single base URL: the site bucket by default (directory URLs rewritten to their
 * index.html), `/api/*` and `/.well-known/*` to the API uncached, the security headers on every
 * answer, behind the web ACL; a custom domain when context gives one. Made in the stack's own
 * scope, so every resource keeps the logical id it is deployed with.
 */
export function createCdn(
  stack: Stack,
  props: { api: HttpApi; originSecret: Secret; siteBucket: IBucket; accessLogs: IBucket; edge: EdgeConfig; webAclArn: string | undefined },
): Cdn {
  const indexRewrite = new CloudFrontFunction(stack, 'IndexRewrite', {
    code: FunctionCode.fromInline(INDEX_REWRITE_FUNCTION),
    comment: 'Serve index.html for directory URLs such as /recover/',
  });
  // The security headers of every answer, the ones the local edge sends (lambdas/contract/security-headers.ts).
  const pageHeaders = securityHeadersPolicy(
    stack,
    'PageHeaders',
    PAGE_SECURITY_HEADERS,
    'Storefront pages and files: CSP, framing, nosniff, referrer, HSTS',
  );
  const api = apiBehavior(stack, props.api, props.originSecret);
  const webAclArn = webAcl(stack, props.edge.webAclArn ?? props.webAclArn);

  const { edge } = props;
  const customDomain = edge.domainName && edge.certificateArn ? { name: edge.domainName, certificateArn: edge.certificateArn } : undefined;
  const distribution = new Distribution(stack, 'Cdn', {
    comment: 'Agent skill marketplace',
    webAclId: webAclArn,
    ...(customDomain
      ? {
          domainNames: [customDomain.name],
          certificate: Certificate.fromCertificateArn(stack, 'Certificate', customDomain.certificateArn),
          minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
        }
      : {}),
    defaultRootObject: 'index.html',
    httpVersion: HttpVersion.HTTP2_AND_3,
    priceClass: PriceClass.PRICE_CLASS_100,
    defaultBehavior: {
      // LIST lets S3 answer 404 (not 403) for a missing key, e.g. an unknown skill's outline.
      origin: S3BucketOrigin.withOriginAccessControl(props.siteBucket, { originAccessLevels: [AccessLevel.READ, AccessLevel.LIST] }),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: pageHeaders,
      functionAssociations: [{ function: indexRewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
    },
    additionalBehaviors: { '/api/*': api, '/.well-known/*': api },
    enableLogging: true,
    logBucket: props.accessLogs,
    logFilePrefix: 'cloudfront/',
  });
  if (!customDomain) {
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'Served on the default *.cloudfront.net certificate, whose TLS policy CloudFront fixes (TLSv1 and up) and no setting changes; with -c domainName and -c certificateArn the distribution uses TLSv1.2_2021 at least.',
    });
  }
  Validations.of(distribution).acknowledge({
    id: 'AwsSolutions-CFR1',
    reason: 'A marketplace for agents anywhere: no country is refused at the edge (sanctions screening, if needed, belongs to checkout).',
  });
  // The LIST warning asks for a defaultRootObject so "/" never lists the bucket; it is set above.
  Annotations.of(distribution).acknowledgeWarning(
    '@aws-cdk/aws-cloudfront-origins:listBucketSecurityRisk',
    'defaultRootObject is index.html',
  );
  return { distribution, webAclArn, customDomain };
}

/**
 * The API's behaviour: cached only as its answers allow (figures, seconds), every viewer header but Host, the API's security headers, the
 * viewer's address written by a function, and the origin secret added by the origin.
 */
function apiBehavior(stack: Stack, api: HttpApi, originSecret: Secret): BehaviorOptions {
  // The API answers JSON only: a CSP that loads nothing, so no answer can be framed or run as a document.
  const apiHeaders = securityHeadersPolicy(stack, 'ApiHeaders', API_SECURITY_HEADERS, 'API answers: CSP, framing, nosniff, referrer, HSTS');
  // The caller's address for the API: CloudFront's own CloudFront-Viewer-Address would need a
  // policy that forwards Host (API Gateway then refuses its execute-api domain) or names every
  // header (10 at most), so a viewer-request function writes the viewer's IP under our header,
  // overwriting any the viewer sent (lambdas/contract/edge-identity.ts).
  const viewerAddress = new CloudFrontFunction(stack, 'ViewerAddress', {
    code: FunctionCode.fromInline(VIEWER_ADDRESS_FUNCTION),
    runtime: FunctionRuntime.JS_2_0,
    comment: 'Tell the API who the viewer is: its IP in the viewer-address header, whatever the viewer sent',
  });
  const apiOrigin = new HttpOrigin(Fn.select(2, Fn.split('/', api.apiEndpoint)), {
    protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    // The origin secret, resolved by CloudFormation from Secrets Manager at deploy; the rotation
    // function changes it in place afterwards. It overwrites a viewer's header of the same name.
    customHeaders: { [ORIGIN_VERIFY_HEADER]: originSecret.secretValue.unsafeUnwrap() },
  });
  return {
    origin: apiOrigin,
    viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
    allowedMethods: AllowedMethods.ALLOW_ALL,
    // Cached only where the API says so: figures answer `public, max-age=5` (the route table's
    // `cacheSeconds`), everything else `no-store`; keyed on the whole query string and the headers
    // an answer varies on (the agent card's A2A-Version), nothing else.
    cachePolicy: new CachePolicy(stack, 'ApiCache', {
      comment: 'API answers cached only as long as their Cache-Control allows (figures: a few seconds)',
      defaultTtl: Duration.seconds(0),
      minTtl: Duration.seconds(0),
      maxTtl: Duration.seconds(FIGURES_CACHE_SECONDS),
      queryStringBehavior: CacheQueryStringBehavior.all(),
      headerBehavior: CacheHeaderBehavior.allowList(...CACHE_KEY_HEADERS),
      cookieBehavior: CacheCookieBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    }),
    // Every viewer header but Host (the API reads more than a whitelist's 10), and with it the
    // viewer-address header the function above writes.
    originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    responseHeadersPolicy: apiHeaders,
    functionAssociations: [{ function: viewerAddress, eventType: FunctionEventType.VIEWER_REQUEST }],
  };
}

/**
 * The web ACL: an existing one (context webAclArn), one from the us-east-1 edge stack, or one
 * created here, which CloudFront accepts only in us-east-1 (a rule stops a deploy elsewhere).
 */
function webAcl(stack: Stack, given: string | undefined): string {
  if (given) return given;
  const arn = new EdgeWebAcl(stack, 'Waf').arn;
  if (Token.isUnresolved(stack.region)) {
    new CfnRule(stack, 'WebAclNeedsUsEast1', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
          assertDescription:
            'This template creates its CloudFront web ACL, which AWS allows only in us-east-1. Deploy it there, synthesize with a region (CDK_DEFAULT_REGION) so bin/app.ts adds a us-east-1 edge stack, or pass -c webAclArn=<an existing CloudFront-scope web ACL>.',
        },
      ],
    });
  }
  return arn;
}

/**
 * The advertised base URL when none is configured: the CloudFront domain, in the SSM parameter
 * every function reads at cold start (its name is in their environment: lib/constructs/deploy-settings.ts).
 */
export function publishBaseUrl(stack: Stack, parameterName: string, distribution: Distribution): void {
  new StringParameter(stack, 'PublicBaseUrl', {
    parameterName,
    stringValue: `https://${distribution.distributionDomainName}`,
    description: 'Base URL the marketplace advertises (read by every function at cold start)',
  });
}
