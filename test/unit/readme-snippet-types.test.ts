/**
 * Every README snippet type-checks under strict TypeScript, as a reader who pastes it into a
 * project of their own compiles it (issue 51): `tsc --strict --noEmit`, Node's ESM resolution, the
 * project's node_modules. The tests that run the snippets run them under tsx, which checks no
 * types, so a snippet could run and still not compile for the reader; this is where that fails.
 * The one name a snippet assumes, `account`, is declared as what the README says it is: a viem
 * account.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeSnippet } from '../support/readme-snippets';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const NAMES = [...README.matchAll(/<!-- snippet: ([\w-]+) -->/g)].map((m) => m[1]!);
/** Inside the checkout (git-ignored), so bare imports resolve from the project's node_modules as in a reader's project. */
const DIR = join(ROOT, 'test', `.tmp-snippet-types-${process.pid}`);

/** What `tsc --strict --noEmit` does to a module of Node's ESM, as a reader's project compiles it. */
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  skipLibCheck: true,
};

/** The strict compiler's errors for each snippet, by name, as `file(line,col): message`. */
function compile(names: string[]): Record<string, string[]> {
  mkdirSync(DIR, { recursive: true });
  // A package of ESM, as the checkout's own is: top-level await and `.js` subpath imports as a reader's.
  writeFileSync(join(DIR, 'package.json'), JSON.stringify({ type: 'module' }));
  const files = names.map((name) => {
    const file = join(DIR, `${name}.ts`);
    writeFileSync(file, `${readmeSnippet(name, README)}\ndeclare const account: import('viem').LocalAccount;\nexport {};\n`);
    return file;
  });
  const program = ts.createProgram(files, OPTIONS);
  const errors: Record<string, string[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const name = d.file ? names[files.indexOf(d.file.fileName)] : undefined;
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const line = at ? `(${at.line + 1},${at.character + 1}): ${message}` : message;
    (errors[name ?? '(program)'] ??= []).push(line);
  }
  return errors;
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe('README snippets under strict TypeScript', () => {
  it('the README has its client snippets', () => {
    expect(NAMES).toEqual(expect.arrayContaining(['x402-fetch-v2', 'x402-fetch-v1', 'x402-axios-v1', 'mcp-x402', 'a2a-1']));
  });

  it('every snippet compiles with tsc --strict --noEmit: 0 errors', () => {
    const errors = compile(NAMES);
    expect(Object.fromEntries(Object.entries(errors).filter(([, e]) => e.length > 0))).toEqual({});
  }, 120_000);
});
