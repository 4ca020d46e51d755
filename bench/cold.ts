/**
 * Issue 14: what each Lambda pays at a cold start to import its bundle, as a ratio to a floor.
 * The floor is an esbuild bundle of only @aws-lambda-powertools/logger (with its middy
 * middleware) and @middy/core. The stack is synthesized once; each function's `index.mjs` and
 * the floor are imported in fresh `node --enable-source-maps` processes (as deployed), with the
 * AWS SDK resolvable beside them as the nodejs22.x runtime provides it, in interleaved pairs;
 * the figure is the median of the per-pair ratios, so machine load weighs on both alike.
 * Fails (exit 1) if a bundle does not import.
 * Usage: npm run bench:cold [-- pairs]   (default 5 pairs)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { buildSite } from '../catalog/build';
import { MarketplaceStack } from '../lib/marketplace-stack';

const pairs = Number(process.argv[2] ?? '5');
const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'skill-market-cold-'));

await buildSite();
const outdir = join(work, 'cdk.out');
const app = new App({
  outdir,
  context: { treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720', publicBaseUrl: 'https://market.example' },
});
const stack = new MarketplaceStack(app, 'Cold');
app.synth();
const template = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.template.json`), 'utf8')) as {
  Resources: Record<string, { Type: string; Properties: { Description?: string; Code?: { S3Key?: unknown } } }>;
};

// The runtime's node_modules: the AWS SDK v3 and nothing else.
const runtime = join(work, 'runtime');
mkdirSync(join(runtime, 'node_modules'), { recursive: true });
symlinkSync(join(root, 'node_modules', '@aws-sdk'), join(runtime, 'node_modules', '@aws-sdk'));

// The floor: Powertools logger with its middy middleware, and middy.
const floorDir = join(runtime, 'floor');
mkdirSync(floorDir);
writeFileSync(
  join(work, 'floor.mjs'),
  [
    "import middy from '@middy/core';",
    "import { Logger } from '@aws-lambda-powertools/logger';",
    "import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';",
    'const logger = new Logger();',
    'export const handler = middy(async () => ({ statusCode: 200 })).use(injectLambdaContext(logger));',
  ].join('\n'),
);
await build({
  entryPoints: [join(work, 'floor.mjs')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  minify: true,
  sourcemap: true,
  outfile: join(floorDir, 'index.mjs'),
  nodePaths: [join(root, 'node_modules')],
  external: ['@aws-sdk/*'],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});

const functions = Object.entries(template.Resources)
  .filter(
    ([, r]) =>
      r.Type === 'AWS::Lambda::Function' &&
      typeof r.Properties.Description === 'string' &&
      r.Properties.Description.startsWith('skill-market '),
  )
  .map(([id, r]) => {
    const key = String(r.Properties.Code?.S3Key).replace(/\.zip$/, '');
    const dir = join(runtime, id);
    cpSync(join(outdir, `asset.${key}`), dir, { recursive: true });
    const size = (p: string): number => {
      const s = statSync(p);
      return s.isDirectory() ? execFileSync('du', ['-sb', p]).toString().split('\t').map(Number)[0]! : s.size;
    };
    return {
      id,
      name: r.Properties.Description!.replace(/^skill-market /, ''),
      dir,
      indexBytes: size(join(dir, 'index.mjs')),
      assetBytes: size(dir),
    };
  });

/** Milliseconds to import `dir/index.mjs` in a fresh node, measured inside it; throws if it does not import. */
function importMs(dir: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(join(dir, 'index.mjs'))}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    cwd: dir,
    env: {
      PATH: process.env['PATH'] ?? '',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return Number(out.toString());
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: string[] = [];
let failed = false;
importMs(floorDir); // warm the file cache once
for (const f of functions) {
  const ratios: number[] = [];
  const own: number[] = [];
  const floor: number[] = [];
  try {
    importMs(f.dir);
    for (let i = 0; i < pairs; i++) {
      const b = importMs(floorDir);
      const m = importMs(f.dir);
      floor.push(b);
      own.push(m);
      ratios.push(m / b);
    }
    rows.push(
      `| ${f.name} | ${(f.indexBytes / 1024).toFixed(0)} KiB / ${(f.assetBytes / 1024 / 1024).toFixed(1)} MiB | ${median(ratios).toFixed(1)}× (${median(own).toFixed(0)} ms vs ${median(floor).toFixed(0)}) |`,
    );
  } catch (e) {
    failed = true;
    rows.push(
      `| ${f.name} | ${(f.indexBytes / 1024).toFixed(0)} KiB | **does not import**: ${
        (e as { stderr?: Buffer }).stderr
          ?.toString()
          .split('\n')
          .find((l) => /Error/.test(l)) ?? (e as Error).message
      } |`,
    );
  }
}
rmSync(work, { recursive: true, force: true });
console.log(`\n| function | index.mjs / asset | import vs floor, median of ${pairs} pairs |\n|---|---|---|\n${rows.join('\n')}`);
if (failed) process.exit(1);
