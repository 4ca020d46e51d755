// Source maps of `npm start`'s bundle (local/run.mjs) that map this project's code only.
//
// The launcher turns source maps on so that stack traces name the TypeScript sources. node then
// reads and JSON-parses the map of every chunk it loads, and decodes a whole map at the first
// stack trace through that chunk (node's web streams read one on the first fetch). Nine tenths
// of the mappings esbuild writes point into dependencies (viem, the AWS SDK, zod): 3.5 MB of
// maps, about 0.2 s of every start's main thread (issue 14, docs/PERFORMANCE.md). A frame in a
// dependency keeps its place in the bundle's chunk, which is where one would look anyway.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import { decode, encode } from '@jridgewell/sourcemap-codec';

/** Whether a map's source (as the map names it, relative to the map) lies in a dependency. */
const inDependency = (mapFile, sourceRoot, source) =>
  resolve(dirname(mapFile), sourceRoot ?? '', source).includes(`${sep}node_modules${sep}`);

/**
 * Rewrites the source map `mapFile` keeping only the mappings into this project's sources (the
 * sources list stays as it is, so every kept mapping's source index still holds). A chunk left
 * with no mapping (one made of dependencies only) loses its map and the comment that names it:
 * node then neither reads the map nor measures every line of the chunk (`lineLengths`, run in
 * JavaScript over each mapped module as it is compiled; 2.3 of the bundle's 6 MB are such chunks).
 * @param {string} mapFile a `<chunk>.map` beside its chunk
 * @returns {{ before: number, after: number, dropped: boolean }} the map's size in bytes before and after (0 when dropped)
 */
export function keepProjectMappings(mapFile) {
  const raw = readFileSync(mapFile, 'utf8');
  const map = JSON.parse(raw);
  const dependency = map.sources.map((source) => inDependency(mapFile, map.sourceRoot, source));
  // A segment of one field maps a generated column to no source: nothing to keep either.
  const lines = decode(map.mappings).map((line) => line.filter((segment) => segment.length > 1 && !dependency[segment[1]]));
  if (lines.every((line) => line.length === 0)) {
    const chunk = mapFile.slice(0, -'.map'.length);
    const comment = `\n//# sourceMappingURL=${basename(mapFile)}\n`;
    const code = readFileSync(chunk, 'utf8');
    if (!code.endsWith(comment)) throw new Error(`${chunk} does not end with its source map comment`);
    writeFileSync(chunk, code.slice(0, -comment.length + 1));
    rmSync(mapFile);
    return { before: raw.length, after: 0, dropped: true };
  }
  map.mappings = encode(lines);
  const trimmed = JSON.stringify(map);
  writeFileSync(mapFile, trimmed);
  return { before: raw.length, after: trimmed.length, dropped: false };
}
