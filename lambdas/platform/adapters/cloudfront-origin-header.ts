/**
 * The origin secret as the CloudFront distribution sends it: the origin custom header on the API
 * origin, read with GetDistributionConfig and changed with UpdateDistribution and the config's
 * ETag (a configuration someone changed in between is refused with PreconditionFailed, and the
 * rotation step fails rather than overwriting their change). The rotation function's role may
 * call these two on this one distribution only.
 */
import { CloudFrontClient, GetDistributionConfigCommand, UpdateDistributionCommand } from '@aws-sdk/client-cloudfront';
import { ORIGIN_VERIFY_HEADER } from '../../contract/edge-identity';
import { originHeaders, type OriginHeaderTarget } from '../origin-secret-rotation';
import { traced } from '../tracer';

let client: CloudFrontClient | undefined;
const cloudFront = (): CloudFrontClient => (client ??= traced(new CloudFrontClient({})));

export function cloudFrontOriginHeader(distributionId: string, headerName: string = ORIGIN_VERIFY_HEADER): OriginHeaderTarget {
  const get = () => cloudFront().send(new GetDistributionConfigCommand({ Id: distributionId }));
  return {
    async read() {
      const out = await get();
      return originHeaders(out.DistributionConfig, headerName).map((h) => h.HeaderValue ?? '');
    },
    async write(value) {
      const out = await get();
      const headers = originHeaders(out.DistributionConfig, headerName);
      if (!out.DistributionConfig || headers.length === 0)
        throw new Error(`no origin of distribution ${distributionId} carries ${headerName}`);
      for (const h of headers) h.HeaderValue = value;
      await cloudFront().send(
        new UpdateDistributionCommand({ Id: distributionId, IfMatch: out.ETag, DistributionConfig: out.DistributionConfig }),
      );
    },
  };
}
