/**
 * Reads the proof of payment from a request: header X-PAYMENT (a JSON string
 * `{"txHash","skill"}`, or the same JSON base64-encoded as x402 clients send it) and/or a
 * JSON body repeating `{txHash, skill}`; and an optional license token (header X-LICENSE or
 * body `license`). Malformed input is 400; no proof at all is 402 PROOF_REQUIRED.
 */
import { TX_HASH } from '../contract/chain';
import { AppError, invalidRequest } from '../platform/errors';
import { readJsonObject, type ApiRequest } from '../platform/http';

export interface ProofInput {
  txHash: `0x${string}` | undefined;
  skill: string | undefined;
  license: string | undefined;
}

export const proofRequired = (): AppError =>
  new AppError({
    status: 402,
    code: 'PROOF_REQUIRED',
    message: 'No proof of payment: send header X-PAYMENT with {"txHash","skill"} (or the same JSON body).',
    tip: 'GET /api/pay?skill=<id> for the challenge, transfer the amount, then POST with X-PAYMENT.',
  });

function parseHeader(raw: string): Record<string, unknown> {
  const text = raw.trim();
  const attempts = text.startsWith('{') ? [text] : [Buffer.from(text, 'base64').toString('utf8')];
  for (const candidate of attempts) {
    try {
      const v = JSON.parse(candidate) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* reported below */
    }
  }
  throw invalidRequest(
    'X-PAYMENT',
    'X-PAYMENT is not a JSON object (nor base64 of one).',
    'Send X-PAYMENT: {"txHash":"0x…","skill":"<id>"}.',
  );
}

const str = (v: unknown, name: string): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidRequest(name, `\`${name}\` must be a string.`, 'Send strings for txHash and skill.');
  return v.trim() || undefined;
};

export function readProof(req: ApiRequest): ProofInput {
  const header = req.headers['x-payment'] !== undefined ? parseHeader(req.headers['x-payment']) : {};
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
  return { txHash: txHash as `0x${string}` | undefined, skill: pick('skill'), license };
}
