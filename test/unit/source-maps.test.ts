import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decode, encode, type SourceMapMappings } from '@jridgewell/sourcemap-codec';
import { keepProjectMappings } from '../../local/source-maps.mjs';

const root = mkdtempSync(join(tmpdir(), 'source-maps-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the start bundle's source maps", () => {
  it('keep every mapping into the project and none into a dependency, wherever the map lies', () => {
    // Laid out as the launcher's build is: the bundle under node_modules/.cache, so a dependency's
    // path relative to the map need not name node_modules at all.
    const chunks = join(root, 'node_modules', '.cache', 'skill-market', 'local', 'build-x', 'chunks');
    mkdirSync(chunks, { recursive: true });
    const sources = [
      '../../../../../../local/stack.ts', // the project
      '../../../../../viem/_esm/utils/index.js', // node_modules/viem, relative to the map
      '../../../../../../lambdas/contract/chain.ts', // the project
      '../../../../../../node_modules/zod/index.js', // node_modules/zod, spelled out
    ];
    const mappings: SourceMapMappings = [
      [
        [0, 0, 1, 0],
        [10, 1, 5, 2],
        [20, 2, 7, 0, 0],
        [30, 3, 1, 1],
        [40], // a generated column that maps to nothing
      ],
      [[0, 1, 9, 0]],
      [
        [4, 3, 2, 0],
        [8, 0, 3, 4],
      ],
    ];
    const file = join(chunks, 'chunk-A.mjs.map');
    writeFileSync(file, JSON.stringify({ version: 3, sources, names: ['x'], mappings: encode(mappings) }));

    const { before, after, dropped } = keepProjectMappings(file);
    expect(dropped).toBe(false);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; mappings: string; names: string[] };
    expect(kept.sources).toEqual(sources);
    expect(kept.names).toEqual(['x']);
    expect(decode(kept.mappings)).toEqual([
      [
        [0, 0, 1, 0],
        [20, 2, 7, 0, 0],
      ],
      [],
      [[8, 0, 3, 4]],
    ]);
    expect(after).toBeLessThan(before);

    // node still finds a project frame through it.
    const map = new SourceMap(JSON.parse(readFileSync(file, 'utf8')));
    expect(map.findEntry(2, 9)).toMatchObject({ originalSource: sources[0], originalLine: 3, originalColumn: 4 });
  });

  it('drop the map of a chunk made of dependencies only, and the comment that names it', () => {
    const dir = join(root, 'node_modules', '.cache', 'skill-market', 'local', 'build-y');
    mkdirSync(dir, { recursive: true });
    const chunk = join(dir, 'chunk-B.mjs');
    const code = 'export const a = 1;\nexport const b = 2;\n';
    writeFileSync(chunk, `${code}//# sourceMappingURL=chunk-B.mjs.map\n`);
    const mappings: SourceMapMappings = [[[0, 0, 0, 0]], [[0, 1, 3, 0], [7]]];
    const sources = ['../../../../zod/index.js', '../../../../../node_modules/viem/index.js'];
    writeFileSync(`${chunk}.map`, JSON.stringify({ version: 3, sources, names: [], mappings: encode(mappings) }));

    expect(keepProjectMappings(`${chunk}.map`)).toMatchObject({ after: 0, dropped: true });
    expect(existsSync(`${chunk}.map`)).toBe(false);
    expect(readFileSync(chunk, 'utf8')).toBe(code);
  });
});
