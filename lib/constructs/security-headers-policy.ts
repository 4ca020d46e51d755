/**
 * A CloudFront response headers policy made from one set of the contract's security headers
 * (lambdas/contract/security-headers.ts), so the distribution adds exactly what the local edge
 * sends. CloudFront takes these headers only in its typed security-headers behaviour (a custom
 * header of the same name is refused), so each name is mapped to its field; a header this
 * function does not know fails the synth rather than being left out.
 */
import { Duration } from 'aws-cdk-lib';
import {
  HeadersFrameOption,
  HeadersReferrerPolicy,
  ResponseHeadersPolicy,
  type ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';
import type { Construct } from 'constructs';
import { HSTS_MAX_AGE_SECONDS, type SecurityHeaders } from '../../lambdas/contract/security-headers';

const oneOf = <T extends string>(values: Record<string, T>, value: string, header: string): T => {
  const found = Object.values(values).find((v) => v === value);
  if (!found) throw new Error(`CloudFront cannot send ${header}: ${value}`);
  return found;
};

/** The security-headers behaviour for `headers`, each overriding what the origin sent, plus HSTS. */
export function securityHeadersBehavior(headers: SecurityHeaders): ResponseSecurityHeadersBehavior {
  const behavior: { -readonly [K in keyof ResponseSecurityHeadersBehavior]: ResponseSecurityHeadersBehavior[K] } = {
    strictTransportSecurity: { accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS), includeSubdomains: false, override: true },
  };
  for (const [name, value] of Object.entries(headers)) {
    switch (name) {
      case 'content-security-policy':
        behavior.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'x-frame-options':
        behavior.frameOptions = { frameOption: oneOf(HeadersFrameOption, value, name), override: true };
        break;
      case 'x-content-type-options':
        if (value !== 'nosniff') throw new Error(`CloudFront sends only nosniff as ${name}, not ${value}`);
        behavior.contentTypeOptions = { override: true };
        break;
      case 'referrer-policy':
        behavior.referrerPolicy = { referrerPolicy: oneOf(HeadersReferrerPolicy, value, name), override: true };
        break;
      default:
        throw new Error(`no CloudFront security header for ${name}`);
    }
  }
  return behavior;
}

/** A response headers policy adding `headers` (and HSTS) to every answer of the behaviours that use it. */
export const securityHeadersPolicy = (scope: Construct, id: string, headers: SecurityHeaders, comment: string): ResponseHeadersPolicy =>
  new ResponseHeadersPolicy(scope, id, { comment, securityHeadersBehavior: securityHeadersBehavior(headers) });
