// `npm start`: bundles local/start.ts with esbuild, then runs the bundle.
//
// One build per start, of this project's sources only (the dependencies are imported from
// node_modules as they are), into a directory of its own that goes when the process exits. Through
// tsx, every one of the ~1,900 modules node loads for a start (viem's, the AWS SDK's) passes tsx's
// loader: importing the server and the catalog build that way took about twice the CPU time of
// this build and the import together. The handlers stay separate chunks
// (`splitting`), imported on a function's first request as the Lambda runtime imports its bundle.
//
// Each project source's `import.meta.url` is replaced by that file's own URL, so that paths the
// sources resolve next to themselves (the data dir, the DynamoDB Local child, the contracts, dist/) are
// the same as when they run unbundled.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, 'node_modules', '.cache', 'skill-market');
mkdirSync(cache, { recursive: true });
const outdir = mkdtempSync(join(cache, 'start-'));
process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));

/** Replaces `import.meta.url` in each project source with the source file's own URL. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const code = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents: code, loader: 'ts' };
    });
  },
};

await build({
  absWorkingDir: root,
  entryPoints: { start: 'local/start.ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  splitting: true,
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // Stack traces name the TypeScript sources.
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  plugins: [sourceUrls],
});
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(outdir, 'start.mjs')).href);
