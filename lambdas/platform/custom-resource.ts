/**
 * CloudFormation's custom resource protocol for a function that is its own service token: the
 * request CloudFormation sends, and the answer the function PUTs to the request's pre-signed
 * ResponseURL (CloudFormation waits for it, up to an hour, then fails the deploy). Every request
 * gets exactly one answer, FAILED with the reason when the work threw.
 */

export interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  ResourceType: string;
  /** Absent on Create. */
  PhysicalResourceId?: string;
  ResourceProperties: Record<string, unknown>;
}

/** What a function answers an event that is not a custom resource request (CloudFormation never sends one). */
export const NOT_A_CUSTOM_RESOURCE_REQUEST = 'not a CloudFormation custom resource request';

export function isCustomResourceEvent(e: unknown): e is CustomResourceEvent {
  const v = e as Partial<CustomResourceEvent> | null | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    (v.RequestType === 'Create' || v.RequestType === 'Update' || v.RequestType === 'Delete') &&
    typeof v.ResponseURL === 'string' &&
    /^https?:\/\//.test(v.ResponseURL) &&
    typeof v.StackId === 'string' &&
    typeof v.RequestId === 'string' &&
    typeof v.LogicalResourceId === 'string'
  );
}

export type CustomResourceOutcome =
  | { ok: true; physicalResourceId: string; data?: Record<string, string | number> }
  | { ok: false; physicalResourceId: string; reason: string };

/** CloudFormation's limit on the whole answer is 4 KB; the reason is cut well inside it. */
const REASON_MAX = 1_000;

/** The answer's body, as CloudFormation reads it. */
export function customResourceAnswer(event: CustomResourceEvent, outcome: CustomResourceOutcome): string {
  return JSON.stringify({
    Status: outcome.ok ? 'SUCCESS' : 'FAILED',
    ...(outcome.ok ? {} : { Reason: outcome.reason.slice(0, REASON_MAX) }),
    PhysicalResourceId: outcome.physicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    NoEcho: false,
    ...(outcome.ok && outcome.data ? { Data: outcome.data } : {}),
  });
}

/**
 * PUTs the answer to the request's pre-signed URL (with no content type: the URL is signed without
 * one). A refused answer throws, so the invocation fails and its Errors alarm reports it.
 */
export async function answerCustomResource(
  event: CustomResourceEvent,
  outcome: CustomResourceOutcome,
  put: typeof fetch = fetch,
): Promise<void> {
  const body = customResourceAnswer(event, outcome);
  const res = await put(event.ResponseURL, {
    method: 'PUT',
    body,
    headers: { 'content-type': '', 'content-length': String(Buffer.byteLength(body)) },
  });
  if (!res.ok) throw new Error(`CloudFormation's response URL refused the answer: HTTP ${res.status}`);
}
