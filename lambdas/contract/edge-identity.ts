/**
 * Who the caller is, and that the request came through the edge: the two headers the edge
 * (CloudFront in AWS, local/edge-server.ts locally) adds to every API request, and what the API
 * may believe of them (docs/SECURITY.md, "The caller is the viewer the edge reports").
 *
 * API Gateway sees CloudFront's edge host as `requestContext.http.sourceIp`, so every viewer
 * behind one edge location would be one caller. CloudFront's own `CloudFront-Viewer-Address`
 * cannot reach the API here: the managed AllViewerExceptHostHeader policy forwards no CloudFront
 * headers, a policy that adds one must also forward Host (API Gateway then answers 403 for its
 * execute-api domain) or list every header by name (10 at most; the API reads more), and a
 * CloudFront Function sees the viewer's IP but not its port, so it cannot write that header's
 * `ip:port` form. So a viewer-request function writes the IP under a name of our own,
 * overwriting whatever the viewer sent, and the API trusts it only beside the origin secret
 * (`ORIGIN_VERIFY_HEADER`), which CloudFront adds as an origin custom header and nobody calling
 * the execute-api endpoint directly knows.
 */

/**
 * The viewer's IP address as the edge saw it (CloudFront's `event.viewer.ip`; locally the
 * socket's peer). Not on CloudFront's disallowed or read-only lists for edge functions.
 */
export const VIEWER_ADDRESS_HEADER = 'x-viewer-address';

/**
 * The origin secret: CloudFront adds it to every request to the API origin (an origin custom
 * header overwrites a viewer's header of the same name), locally the edge does. Not an
 * `X-Amz-*`/`X-Edge-*` name, which CloudFront refuses as custom headers.
 */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/**
 * The staging labels of the origin secret a function accepts: CloudFront's edges take a new
 * distribution configuration over minutes, so during and after a rotation some send the pending
 * or the previous value while others already send the current one.
 */
export const ACCEPTED_ORIGIN_SECRET_STAGES = ['AWSCURRENT', 'AWSPENDING', 'AWSPREVIOUS'] as const;

/**
 * A function that meets an origin secret it does not know reads the secret again at most this
 * often, so a flood of direct calls with made-up secrets costs Secrets Manager one read per
 * instance per period. The rotation waits this long after storing a new value before CloudFront
 * may send it, so no instance can still be inside its wait when the new value first arrives.
 */
export const ORIGIN_SECRET_REFRESH_SECONDS = 10;

/**
 * A warm function reads the accepted values again once they are this old, even if every request
 * matched: a value an emergency rotation retired stops being accepted within this time.
 */
export const ORIGIN_SECRET_MAX_AGE_SECONDS = 15 * 60;

/**
 * What the viewer-request function does, as the local edge does it: the viewer's address,
 * overwriting any header of that name the viewer sent. Header names are lower case.
 */
export function addViewerAddress(headers: Record<string, string>, viewerIp: string): void {
  headers[VIEWER_ADDRESS_HEADER] = viewerIp;
}

/**
 * `addViewerAddress` as a CloudFront Function (viewer request, JavaScript runtime 2.0): AWS's
 * documented "true client IP" example under our header name. Assigning the header replaces any
 * value (and multiValue) the viewer sent. test/unit checks it against `addViewerAddress`.
 */
export const VIEWER_ADDRESS_FUNCTION = `function handler(event){var r=event.request;r.headers['${VIEWER_ADDRESS_HEADER}']={value:event.viewer.ip};return r;}`;
