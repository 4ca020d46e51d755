/**
 * README snippets run as they are written. A fenced ```ts block right after an HTML comment
 * `<!-- snippet: NAME -->` is a snippet: `runReadmeSnippet` writes it into a module under
 * `test/.tmp-snippets-<pid>/` (git-ignored; inside the checkout so its bare imports resolve from
 * the project's node_modules, exactly as in a reader's project), with the local service's URL
 * put in place of the README's `http://127.0.0.1:8787`, and runs it. The names the snippet
 * assumes (a viem `account`, say) are passed in; the names it declares that the test wants back
 * are returned. A test may name another skill in place of the one the snippet buys (`skill`: a
 * price above a client's default cap, say). Nothing else is changed: a snippet that no longer works
 * fails its test. A snippet may import another snippet of the README as a module saved beside it
 * (`from './<name>.js'`, as the README says to save it): that one is written beside it, as it is.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The host the README's snippets name: `npm start`'s edge. */
export const README_BASE_URL = 'http://127.0.0.1:8787';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The source of snippet `name` in `readme` (the README's text by default). */
export function readmeSnippet(name: string, readme = readFileSync(join(ROOT, 'README.md'), 'utf8')): string {
  const marker = `<!-- snippet: ${name} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README has no snippet "${name}" (${marker})`);
  if (readme.indexOf(marker, at + marker.length) >= 0) throw new Error(`README names snippet "${name}" twice`);
  const block = /^\s*```ts\n([\s\S]*?)\n```/.exec(readme.slice(at + marker.length));
  if (!block) throw new Error(`snippet "${name}" is not followed by a \`\`\`ts block`);
  return block[1]!;
}

/** Splits a snippet into its import statements (kept at module level) and the rest. */
function splitImports(source: string): { imports: string; body: string } {
  const imports: string[] = [];
  const body: string[] = [];
  let inImport = false;
  for (const line of source.split('\n')) {
    if (inImport || /^import\s/.test(line)) {
      imports.push(line);
      // An import statement ends at the line that names its module.
      inImport = !/from\s+['"][^'"]+['"];?\s*(\/\/.*)?$|^import\s+['"][^'"]+['"];?/.test(line);
    } else body.push(line);
  }
  return { imports: imports.join('\n'), body: body.join('\n') };
}

let sequence = 0;

/**
 * Runs snippet `name` against `baseUrl` with `scope`'s names defined, and returns the values of
 * `returns` (names the snippet declares) when it finishes.
 */
export async function runReadmeSnippet(
  name: string,
  options: {
    baseUrl: string;
    scope?: Record<string, unknown>;
    returns?: string[];
    readme?: string;
    /** `[the skill the snippet names, the skill to buy instead]`: the snippet must name the first. */
    skill?: [string, string];
  },
): Promise<Record<string, unknown>> {
  const scope = options.scope ?? {};
  const returns = options.returns ?? [];
  for (const id of [...Object.keys(scope), ...returns]) {
    if (!IDENTIFIER.test(id)) throw new Error(`not an identifier: ${id}`);
  }
  let source = readmeSnippet(name, options.readme).replaceAll(README_BASE_URL, options.baseUrl.replace(/\/$/, ''));
  if (options.skill) {
    const [named, instead] = options.skill;
    if (!source.includes(named)) throw new Error(`snippet "${name}" names no skill ${named}`);
    source = source.replaceAll(named, instead);
  }
  const { imports, body } = splitImports(source);
  const dir = join(ROOT, 'test', `.tmp-snippets-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const modules = [...imports.matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => join(dir, `${m[1]!}.ts`));
  for (const module of modules) writeFileSync(module, `${readmeSnippet(basename(module, '.ts'), options.readme)}\n`);
  const file = join(dir, `${name.replace(/[^\w-]/g, '_')}-${++sequence}.ts`);
  writeFileSync(
    file,
    `${imports}\n` +
      `export default async function run(scope: any) {\n` +
      `  const { ${Object.keys(scope).join(', ')} } = scope;\n` +
      `${body}\n` +
      `  return { ${returns.join(', ')} };\n` +
      `}\n`,
  );
  try {
    const module = (await import(/* @vite-ignore */ file)) as { default: (scope: unknown) => Promise<Record<string, unknown>> };
    return await module.default(scope);
  } finally {
    for (const f of [file, ...modules]) rmSync(f, { force: true });
  }
}
