/** Query-parameter readers that answer bad values with 400 INVALID_REQUEST naming the parameter. */
import { invalidRequest } from './errors';
import type { ApiRequest } from './http';

export function optionalString(req: ApiRequest, name: string, opts: { maxLength: number; minLength?: number }): string | undefined {
  const raw = req.query[name];
  if (raw === undefined) return undefined;
  const v = raw.trim();
  if (v.length < (opts.minLength ?? 1))
    throw invalidRequest(name, `\`${name}\` must not be empty.`, `Give \`${name}\` a value or leave it out.`);
  if (v.length > opts.maxLength)
    throw invalidRequest(
      name,
      `\`${name}\` is longer than ${opts.maxLength} characters.`,
      `Shorten \`${name}\` to at most ${opts.maxLength} characters.`,
    );
  return v;
}

export function optionalNumber(
  req: ApiRequest,
  name: string,
  opts: { min: number; max: number; unit: string; example: string },
): number | undefined {
  const raw = req.query[name];
  if (raw === undefined) return undefined;
  const v = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(v) || v < opts.min || v > opts.max) {
    throw invalidRequest(
      name,
      `\`${name}\` must be a number from ${opts.min} to ${opts.max} (${opts.unit}), got "${raw}".`,
      `Example: ${name}=${opts.example}`,
    );
  }
  return v;
}

export function optionalInteger(req: ApiRequest, name: string, opts: { min: number; max: number; fallback: number }): number {
  const raw = req.query[name];
  if (raw === undefined) return opts.fallback;
  const v = /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(v) || v < opts.min || v > opts.max) {
    throw invalidRequest(
      name,
      `\`${name}\` must be a whole number from ${opts.min} to ${opts.max}, got "${raw}".`,
      `Leave it out for the default of ${opts.fallback}.`,
    );
  }
  return v;
}
