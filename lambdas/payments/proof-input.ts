/**
 * Reads the proof of payment from a request: header X-PAYMENT (a JSON string
 * `{"txHash","skill"}`, or the same JSON base64-encoded as x402 clients send it) and/or a
 * JSON body repeating `{txHash, skill}`; an optional license token (header X-LICENSE or body
 * `license`); and an optional wallet signature (header SIGN-IN-WITH-X, base64 JSON as x402's
 * sign-in-with-x extension sends it, or the same object as `signInWithX` in X-PAYMENT).
 * Everything goes through the one bounded JSON reader. Malformed input is 400; no proof at all
 * is 402 PROOF_REQUIRED.
 */
import * as z from 'zod/mini';
import { safeParse } from '../platform/validation';
import { TX_HASH } from '../contract/chain';
import { AppError, invalidRequest } from '../platform/errors';
import { readJsonObject, type ApiRequest } from '../platform/http';
import { parseJsonHeaderValue, type JsonLimits } from '../platform/json';
import type { SignInWithX } from './ports';
import { readVersionParam } from './pack-version';

export interface ProofInput {
  txHash: `0x${string}` | undefined;
  skill: string | undefined;
  license: string | undefined;
  /** Parsed and shape-checked, not yet verified. */
  signInWithX?: SignInWithX | undefined;
  /**
   * The version a re-download asks for (query `version`, issue 52); the current one when absent.
   * A paid purchase always delivers the current version.
   */
  version?: number | undefined;
}

/** A JSON header is small and flat; nothing legitimate comes near these. */
const HEADER_LIMITS: JsonLimits = { maxBytes: 8 * 1024, maxDepth: 4 };

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const SignInWithXSchema = z.pipe(
  z.object({
    domain: text(255),
    address: text(64),
    uri: text(2048),
    version: text(8),
    chainId: text(64),
    type: text(32),
    nonce: text(128),
    issuedAt: text(64),
    expirationTime: z.optional(text(64)),
    notBefore: z.optional(text(64)),
    statement: z.optional(text(500)),
    resources: z.optional(z.array(text(2048)).check(z.maxLength(10))),
    signature: text(6002),
    signatureScheme: z.optional(text(32)),
    requestId: z.optional(text(200)),
  }),
  z.transform(({ signatureScheme: _scheme, requestId: _id, ...fields }): SignInWithX => {
    const { expirationTime, notBefore, statement, resources, ...required } = fields;
    return {
      ...required,
      ...(expirationTime !== undefined ? { expirationTime } : {}),
      ...(notBefore !== undefined ? { notBefore } : {}),
      ...(statement !== undefined ? { statement } : {}),
      ...(resources !== undefined ? { resources } : {}),
    };
  }),
);

/** A JSON object from a header: the JSON itself, or base64 of it. */
function parseJsonHeader(raw: string, name: string, example: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJsonHeaderValue(raw, HEADER_LIMITS, name);
  } catch (e) {
    if (e instanceof AppError && e.status === 413) throw e;
    value = undefined;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw invalidRequest(name, `${name} is not a JSON object (nor base64 of one).`, example);
}

const str = (v: unknown, name: string): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidRequest(name, `\`${name}\` must be a string.`, 'Send strings for txHash and skill.');
  return v.trim() || undefined;
};

function readSignInWithX(value: unknown, name: string): SignInWithX | undefined {
  if (value === undefined) return undefined;
  const parsed = safeParse(SignInWithXSchema, value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalidRequest(
    name,
    `${name} is not a sign-in-with-x proof: ${issue.path.join('.') || 'value'}: ${issue.message}.`,
    'Send base64 JSON with domain, address, uri, version, chainId, type, nonce, issuedAt, resources and signature (docs/SECURITY.md).',
  );
}

/** A SIGN-IN-WITH-X value (base64 JSON, or the JSON itself) as any surface receives it; 400 when it is not one. */
export function readSignInWithXHeader(value: string, name = 'SIGN-IN-WITH-X'): SignInWithX {
  return readSignInWithX(parseJsonHeader(value, name, 'Send SIGN-IN-WITH-X: base64 of the signed JSON.'), name)!;
}

/** The request's SIGN-IN-WITH-X header, parsed and shape-checked (not verified); 400 when it is not one. */
export function signInWithXOf(req: ApiRequest): SignInWithX | undefined {
  const value = req.headers['sign-in-with-x'];
  return value === undefined ? undefined : readSignInWithXHeader(value);
}

export function readProof(req: ApiRequest): ProofInput {
  const header =
    req.headers['x-payment'] !== undefined
      ? parseJsonHeader(req.headers['x-payment'], 'X-PAYMENT', 'Send X-PAYMENT: {"txHash":"0x…","skill":"<id>"}.')
      : {};
  const body = readJsonObject(req) ?? {};
  const pick = (name: 'txHash' | 'skill'): string | undefined => {
    const h = str(header[name], name);
    const b = str(body[name], name);
    if (h !== undefined && b !== undefined && h.toLowerCase() !== b.toLowerCase()) {
      throw invalidRequest(name, `X-PAYMENT and the body disagree on \`${name}\`.`, 'Send the same proof in both, or only one of them.');
    }
    return h ?? b;
  };
  const txHash = pick('txHash');
  if (txHash !== undefined && !TX_HASH.test(txHash)) {
    throw invalidRequest(
      'txHash',
      '`txHash` must be 0x followed by 64 hex digits.',
      'Use the transaction hash your wallet returned for the transfer.',
    );
  }
  const license = str(req.headers['x-license'], 'X-LICENSE') ?? str(body['license'], 'license');
  const signInWithX = signInWithXOf(req) ?? readSignInWithX(header['signInWithX'], 'X-PAYMENT.signInWithX');
  const version = readVersionParam(req.query['version']);
  return { txHash: txHash as `0x${string}` | undefined, skill: pick('skill'), license, signInWithX, version };
}
