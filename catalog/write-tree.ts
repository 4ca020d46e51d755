import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

function listFiles(dir: string): string[] {
  let out: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    out = e.isDirectory() ? out.concat(listFiles(p)) : out.concat(p);
  }
  return out;
}

/**
 * Makes `outDir` hold exactly `files` (relative path → content). Each changed file is
 * written to a temporary name and renamed into place, and stale files are removed after,
 * so a server reading the tree during a rebuild never sees a missing or half-written file.
 */
export function writeTree(outDir: string, files: ReadonlyMap<string, string | Buffer>): { written: number; removed: number } {
  let written = 0;
  let removed = 0;
  for (const [rel, content] of files) {
    const target = join(outDir, rel);
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    let current: Buffer | undefined;
    try {
      current = readFileSync(target);
    } catch {
      current = undefined;
    }
    if (current?.equals(bytes)) continue;
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, target);
    written++;
  }
  const wanted = new Set([...files.keys()].map((k) => k.split('/').join(sep)));
  for (const file of listFiles(outDir)) {
    const rel = relative(outDir, file);
    if (!wanted.has(rel) && !rel.endsWith('.tmp')) {
      rmSync(file, { force: true });
      removed++;
    }
  }
  return { written, removed };
}

/** Reads every file under `dir` into a map of relative path (with `/`) → bytes. */
export function readTree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const file of listFiles(dir)) files.set(relative(dir, file).split(sep).join('/'), readFileSync(file));
  return files;
}
