import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTree, writeTree } from '../../catalog/write-tree';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeTree', () => {
  it('writes new files, skips unchanged ones and removes stale ones', () => {
    dir = mkdtempSync(join(tmpdir(), 'tree-'));
    mkdirSync(join(dir, 'old'));
    writeFileSync(join(dir, 'old', 'stale.json'), '{}');
    expect(
      writeTree(
        dir,
        new Map([
          ['a.txt', 'A'],
          ['skills/x/outline.json', '{"x":1}'],
        ]),
      ),
    ).toEqual({ written: 2, removed: 1 });
    expect(
      writeTree(
        dir,
        new Map([
          ['a.txt', 'A'],
          ['skills/x/outline.json', '{"x":2}'],
        ]),
      ),
    ).toEqual({ written: 1, removed: 0 });
    expect(readFileSync(join(dir, 'skills/x/outline.json'), 'utf8')).toBe('{"x":2}');
    expect([...readTree(dir).keys()].sort()).toEqual(['a.txt', 'skills/x/outline.json']);
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(false);
  });
});
