import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeSnippet, runReadmeSnippet } from '../support/readme-snippets';

const readme = [
  'Some prose.',
  '<!-- snippet: sum -->',
  '```ts',
  "import { parseUnits } from 'viem';",
  'import {',
  '  formatUnits,',
  "} from 'viem';",
  "const url = 'http://127.0.0.1:8787/api/pay?skill=x';",
  "const atomic = parseUnits('0.099', 6) + extra;",
  'const shown = formatUnits(atomic, 6);',
  '```',
  '<!-- snippet: broken -->',
  '```ts',
  "throw new Error('this snippet no longer works');",
  '```',
  '<!-- snippet: prose -->',
  'no code here',
].join('\n');

describe('README snippets', () => {
  it('are the ts block after their marker, run with the local URL in place of the README one, the given names defined', async () => {
    expect(readmeSnippet('sum', readme)).toContain("parseUnits('0.099', 6)");
    const out = await runReadmeSnippet('sum', {
      readme,
      baseUrl: 'http://127.0.0.1:40123/',
      scope: { extra: 1n },
      returns: ['url', 'atomic', 'shown'],
    });
    expect(out).toEqual({ url: 'http://127.0.0.1:40123/api/pay?skill=x', atomic: 99001n, shown: '0.099001' });
  });

  it('fail when the snippet fails, is missing, is named twice or has no ts block', async () => {
    await expect(runReadmeSnippet('broken', { readme, baseUrl: 'http://x' })).rejects.toThrow('no longer works');
    expect(() => readmeSnippet('absent', readme)).toThrow('has no snippet');
    expect(() => readmeSnippet('sum', `${readme}\n<!-- snippet: sum -->`)).toThrow('twice');
    expect(() => readmeSnippet('prose', readme)).toThrow('ts block');
    await expect(runReadmeSnippet('sum', { readme, baseUrl: 'http://x', returns: ['a-b'] })).rejects.toThrow('identifier');
  });

  it("every snippet in the project's README is run by a test", () => {
    const names = [...readFileSync('README.md', 'utf8').matchAll(/<!-- snippet: ([\w-]+) -->/g)].map((m) => m[1]!);
    const tests = readdirSync('test', { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(join('test', f), 'utf8'))
      .join('\n');
    const run = names.filter((name) => tests.includes(`runReadmeSnippet('${name}'`));
    // A module a run snippet imports (`from './<name>.js'`) runs inside it.
    const imported = names.filter((name) => run.some((r) => readmeSnippet(r).includes(`from './${name}.js'`)));
    const unrun = names.filter((name) => !run.includes(name) && !imported.includes(name));
    expect(unrun).toEqual([]);
  });
});
