/**
 * Keeps package-lock.json usable by `npm ci` on every machine.
 *
 * @foundry-rs/anvil lists one optional platform package per OS/CPU, but the registry
 * this project's machines reach serves only the linux-amd64 one. `npm install` then
 * leaves the others out of the lock, and `npm ci` refuses a lock that misses an optional
 * dependency. This adds the missing entries with their os/cpu, which npm skips on any
 * other platform, exactly as a lock written against the full registry would.
 * Run after any `npm install`: `npx tsx local/lockfile-platforms.ts` (test/unit/lockfile.test.ts checks it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const LOCK = fileURLToPath(new URL('../package-lock.json', import.meta.url));
const PLATFORMS: Record<string, { os: string; cpu: string }> = {
  'darwin-amd64': { os: 'darwin', cpu: 'x64' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'linux-amd64': { os: 'linux', cpu: 'x64' },
  'linux-arm64': { os: 'linux', cpu: 'arm64' },
  'win32-amd64': { os: 'win32', cpu: 'x64' },
};

type Lock = { packages: Record<string, Record<string, unknown>> };

/** Names of anvil's optional platform packages the lock does not hold. */
export function missingPlatformEntries(lock: Lock): string[] {
  const anvil = lock.packages['node_modules/@foundry-rs/anvil'];
  const optional = Object.keys((anvil?.['optionalDependencies'] as Record<string, string> | undefined) ?? {});
  return optional.filter((name) => !lock.packages[`node_modules/${name}`]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lock = JSON.parse(readFileSync(LOCK, 'utf8')) as Lock;
  const anvil = lock.packages['node_modules/@foundry-rs/anvil']!;
  const deps = anvil['optionalDependencies'] as Record<string, string>;
  for (const name of missingPlatformEntries(lock)) {
    const suffix = name.replace('@foundry-rs/anvil-', '');
    const platform = PLATFORMS[suffix];
    if (!platform) throw new Error(`unknown anvil platform package ${name}`);
    const version = deps[name]!;
    lock.packages[`node_modules/${name}`] = {
      version,
      resolved: `https://registry.npmjs.org/${name}/-/anvil-${suffix}-${version}.tgz`,
      cpu: [platform.cpu],
      dev: true,
      license: 'MIT OR Apache-2.0',
      optional: true,
      os: [platform.os],
    };
    console.log(`added ${name}@${version}`);
  }
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
}
