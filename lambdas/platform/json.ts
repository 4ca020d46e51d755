/**
 * The one bounded JSON reader for request bodies and JSON-carrying headers. JSON.parse itself
 * accepts any nesting, and a value nested thousands of levels deep later breaks whatever walks
 * it (JSON.stringify in a task store, a validator, a logger) far from the request that sent it.
 * So size and depth are checked before parsing, and refused with the spec's failure body.
 */
import { invalidJson, payloadTooLarge, PLATFORM_ERRORS, type AppError } from './errors';

/** Request bodies above this many bytes get 413 PAYLOAD_TOO_LARGE (API Gateway itself allows 10 MB). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Deeper than any document this API accepts (the A2A message, an MCP call, an intent) needs. */
export const MAX_JSON_DEPTH = 32;

export interface JsonLimits {
  maxBytes: number;
  maxDepth: number;
}

export const BODY_LIMITS: JsonLimits = { maxBytes: MAX_BODY_BYTES, maxDepth: MAX_JSON_DEPTH };

/** The nesting depth of JSON text (arrays and objects), counted without parsing; brackets inside strings do not count. */
export function jsonDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

const tooDeep = (where: string, maxDepth: number): AppError =>
  PLATFORM_ERRORS.INVALID_JSON({
    message: `${where} is nested deeper than ${maxDepth} levels.`,
    tip: `Send JSON nested at most ${maxDepth} levels deep.`,
  });

/**
 * Parses JSON text within limits: 413 above `maxBytes`, 400 INVALID_JSON when malformed or
 * nested deeper than `maxDepth`. `where` names the input in the message (e.g. "the request body").
 */
export function parseJson(text: string, limits: JsonLimits = BODY_LIMITS, where = 'The request body'): unknown {
  if (Buffer.byteLength(text, 'utf8') > limits.maxBytes) throw payloadTooLarge(limits.maxBytes);
  if (jsonDepth(text, limits.maxDepth) > limits.maxDepth) throw tooDeep(where, limits.maxDepth);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw invalidJson((e as Error).message);
  }
}

/**
 * A JSON value carried in a header: the JSON itself when it starts with `{`, else base64 of it
 * (what x402 clients send). Within `limits`, like {@link parseJson}, whose errors it throws.
 */
export function parseJsonHeaderValue(raw: string, limits: JsonLimits, where: string): unknown {
  const trimmed = raw.trim();
  return parseJson(trimmed.startsWith('{') ? trimmed : Buffer.from(trimmed, 'base64').toString('utf8'), limits, where);
}
