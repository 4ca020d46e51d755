// Source maps of `npm start`'s bundle (local/run.mjs) that map this project's code only.
//
// The launcher turns source maps on so that stack traces name the TypeScript sources. node then
// reads and JSON-parses the map of every chunk it loads, and decodes a whole map at the first
// stack trace through that chunk (node's web streams read one on the first fetch). Nine tenths
// of the mappings esbuild writes point into dependencies (viem, the AWS SDK, zod): 3.5 MB of
// maps, about 0.2 s of every start's main thread (issue 14, docs/PERFORMANCE.md). A frame in a
// dependency keeps its place in the bundle's chunk, which is where one would look anyway.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { decode, encode } from '@jridgewell/sourcemap-codec';

/** Whether a map's source (as the map names it, relative to the map) lies in a dependency. */
const inDependency = (mapFile, sourceRoot, source) =>
  resolve(dirname(mapFile), sourceRoot ?? '', source).includes(`${sep}node_modules${sep}`);

/**
 * Rewrites the source map `mapFile` keeping only the mappings into this project's sources (the
 * sources list stays as it is, so every kept mapping's source index still holds).
 * @returns {{ before: number, after: number }} the map's size in bytes before and after
 */
export function keepProjectMappings(mapFile) {
  const raw = readFileSync(mapFile, 'utf8');
  const map = JSON.parse(raw);
  const dependency = map.sources.map((source) => inDependency(mapFile, map.sourceRoot, source));
  // A segment of one field maps a generated column to no source: nothing to keep either.
  map.mappings = encode(decode(map.mappings).map((line) => line.filter((segment) => segment.length > 1 && !dependency[segment[1]])));
  const trimmed = JSON.stringify(map);
  writeFileSync(mapFile, trimmed);
  return { before: raw.length, after: trimmed.length };
}
