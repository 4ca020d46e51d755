// `npm start`'s launcher: runs local/start.ts from a bundle built once, not through tsx on every
// start (issue 14: importing 1,944 modules through tsx's loader was 3.0 s of a 5.1 s start).
//
// The bundle (esbuild, code splitting, its dependencies included: one file loads in 0.19 s where
// node resolving and compiling viem's and the SDK's ~1,900 separate modules took 0.56 s) lives
// under node_modules/.cache/skill-market/, with a manifest of every source file it was
// built from (size and mtime) and of the directories holding them (a file added there changes
// the directory's mtime). A start checks the manifest (~250 stats) and rebuilds only when
// something changed: the first start after a clone or an edit pays ~1.2 s, the others nothing.
// `node local/run.mjs --build-only` brings the bundle up to date and exits (the test setup does).
// Concurrent starts (the test workers) each build into a directory of their own; the manifest
// is replaced atomically, so no start ever imports a half-written bundle.
//
// Each source file's `import.meta.url` is replaced by that file's own URL, so that paths the
// sources resolve next to themselves (the data dir, the dynalite child, the contracts, dist/)
// are the same as when they run unbundled.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = join(root, 'node_modules', '.cache', 'skill-market', 'local');
const manifestPath = join(cacheDir, 'manifest.json');
// The server, and the catalog build it serves (in a worker thread beside it: see site-build.ts).
const ENTRIES = { start: 'local/start.ts', 'site-build': 'local/site-build.ts' };
// Besides the sources: what changes how they are built or resolved.
const ALSO_WATCHED = ['package-lock.json', 'tsconfig.json', 'local/run.mjs', 'local/source-maps.mjs'];
/**
 * A build no running start uses is removed once it is this old. A start marks the build it runs
 * (`.pid-<pid>`): a server started before an edit keeps importing its handlers' chunks from it.
 */
const STALE_BUILD_MS = 10 * 60_000;

/** Whether a process of that pid is alive (signal 0 only asks). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Whether a build directory may go: old, and no live process marked it. */
function unused(path) {
  if (Date.now() - statSync(path).mtimeMs <= STALE_BUILD_MS) return false;
  return !readdirSync(path).some((f) => f.startsWith('.pid-') && alive(Number(f.slice('.pid-'.length))));
}

/** What a file or directory looks like now; undefined when it is gone. */
function stamp(path) {
  try {
    const s = statSync(join(root, path));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

function readManifest() {
  try {
    return JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch {
    return undefined;
  }
}

const isFresh = (manifest) =>
  JSON.stringify(manifest?.entries) === JSON.stringify(ENTRIES) &&
  Object.entries(manifest.stamps ?? {}).every(([path, was]) => stamp(path) === was) &&
  stamp(manifest.dir) !== undefined;

/** Replaces `import.meta.url` in each project source with the source file's own URL. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.includes(`${join(root, 'node_modules')}`)) return undefined;
      const code = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents: code, loader: 'ts' };
    });
  },
};

async function build() {
  const { build: esbuild } = await import('esbuild');
  const id = `build-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const outdir = join(cacheDir, id);
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Run as programs of their own (anvil's binary, dynalite's child process) or not used by a start.
    external: ['esbuild', '@foundry-rs/*', 'dynalite', '@duckdb/*'],
    // Some CommonJS dependencies call require(); an ESM bundle needs it defined.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    splitting: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: true,
    // Stack traces need the mappings, not the sources: node keeps every loaded map in memory.
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [sourceUrls],
  });
  // Only the project's mappings are kept (local/source-maps.mjs says why).
  const { keepProjectMappings } = await import('./source-maps.mjs');
  for (const output of Object.keys(result.metafile.outputs)) if (output.endsWith('.map')) keepProjectMappings(join(root, output));
  const files = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith('node_modules/'));
  const watched = [...new Set([...files, ...files.map((f) => dirname(f)), ...ALSO_WATCHED])];
  const manifest = {
    entries: ENTRIES,
    dir: relative(root, outdir),
    stamps: Object.fromEntries(watched.map((p) => [p, stamp(p)])),
  };
  const tmp = `${manifestPath}.${id}`;
  writeFileSync(tmp, JSON.stringify(manifest));
  renameSync(tmp, manifestPath);
  // Older builds that no running start uses.
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    if (!name.startsWith('build-') || name === id) continue;
    try {
      if (unused(path)) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent start.
    }
  }
  return manifest;
}

mkdirSync(cacheDir, { recursive: true });
let manifest = readManifest();
if (!isFresh(manifest)) manifest = await build();
if (process.argv[2] === '--build-only') process.exit(0);
// Stack traces name the TypeScript sources, as they did under tsx.
process.setSourceMapsEnabled(true);
const built = join(root, manifest.dir);
// Marks the build as in use while this process lives (see STALE_BUILD_MS).
const marker = join(built, `.pid-${process.pid}`);
writeFileSync(marker, '');
process.on('exit', () => rmSync(marker, { force: true }));
// The catalog build (skipped when nothing it reads or writes changed: local/site-stamps.ts) runs
// in its worker beside the server's import and start-up, no longer before them (~0.1 s of every
// start); the server listens only once it is done, and a failed build stops the start before
// anything listens. local/start.ts finds the promise under this name (SITE_BUILT there).
const siteBuilt = new Promise((resolve, reject) => {
  const worker = new Worker(join(built, 'site-build.mjs'), {
    workerData: { recordFile: join(cacheDir, 'site.json'), buildId: manifest.dir },
  });
  worker.once('error', (e) => console.error(e));
  worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the catalog build exited with code ${code}`))));
});
// Awaited by the server; marked handled here so that a failure before the server imports is not "unhandled".
siteBuilt.catch(() => undefined);
globalThis[Symbol.for('skill-market.site-built')] = siteBuilt;
await import(pathToFileURL(join(built, 'start.mjs')).href);
