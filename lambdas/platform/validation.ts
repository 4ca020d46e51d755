/**
 * Parsing with zod's mini build, for the request bodies a function parses on its hot path (the
 * access domain's signed bodies, the proof of payment). Its functional API lets esbuild keep
 * only the checks used: measured with bench/cold.ts, classic zod is ~88 KiB and ~12 ms of every
 * cold start that imports it, the mini build with the English messages ~16 KiB and ~4 ms.
 * Schemas are written with `import * as z from 'zod/mini'` (a named re-export of the namespace
 * would keep all of it, locales included) and parsed through {@link safeParse} here, which sets
 * the English messages classic zod sets: the mini build has none of its own ("Invalid input"),
 * and a 400 must read as it did. Schemas only documented (OpenAPI) or used off the hot path stay
 * on classic zod.
 */
import * as z from 'zod/mini';
import { en } from 'zod/v4/locales';

let configured = false;

/** `schema.safeParse(value)`, with zod's English messages. */
export function safeParse<T extends z.core.$ZodType>(schema: T, value: unknown): z.core.util.SafeParseResult<z.output<T>> {
  if (!configured) {
    z.config(en());
    configured = true;
  }
  return z.safeParse(schema, value);
}
