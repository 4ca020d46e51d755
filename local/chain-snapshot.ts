/**
 * The local chain's set-up, made once and then loaded. A fresh chain needs
 * the test tokens at Base's addresses, sixteen mints, the ERC-8004 registry and its test agent,
 * and the relayer's ETH: about twenty transactions, each signed in JavaScript and waited for,
 * 0.6–0.8 s of every start on a new data dir and of every in-memory stack the tests start.
 * After a set-up on a chain that began empty, anvil's own dump of the chain (accounts, blocks,
 * transactions and logs: `anvil_dumpState`) is kept under node_modules/.cache/skill-market/chain/,
 * named by a hash of everything that decides what the set-up writes; the next empty chain
 * starts from it (`--load-state`) and the same set-up then finds everything in place.
 * A chain that did not begin empty is never dumped: a user's payments never enter the cache.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createTestClient, http } from 'viem';
import { LOCAL_CACHE_DIR, anvilVersion } from './anvil';
import { localChain } from './local-chain';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the snapshots live: in the project's cache, gone with node_modules. */
export const SNAPSHOT_DIR = join(LOCAL_CACHE_DIR, 'chain');

/**
 * What decides the set-up's result: the code that makes it (local/stack.ts chooses the steps,
 * the others take them), the chain constants (Base's token addresses, their EIP-712 names) and
 * the contracts deployed. Any edit to one of them names a new snapshot.
 */
export const SET_UP_SOURCES: readonly string[] = [
  'local/anvil.ts',
  'local/identity-registry.ts',
  'local/price-feed.ts',
  'local/local-chain.ts',
  'local/stack.ts',
  'lambdas/contract/chain.ts',
  'local/contracts/test-stablecoin.artifact.json',
  'local/contracts/multicall.artifact.json',
  'local/contracts/identity-registry.artifact.json',
  'local/contracts/test-price-feed.artifact.json',
  'local/escrow.ts',
  'local/contracts/auth-capture-escrow.artifact.json',
  'local/contracts/token-store.artifact.json',
  'local/contracts/erc3009-payment-collector.artifact.json',
  'local/contracts/operator-refund-collector.artifact.json',
  'local/contracts/escrow-operator-guard.artifact.json',
];

/** A snapshot unused this long, under another key, is removed when a new one is written. */
const STALE_SNAPSHOT_MS = 10 * 60_000;

/** The key of a set-up: sha256 over the sources' contents (each named) and anvil's version. */
export function setUpKey(sources: readonly string[] = SET_UP_SOURCES, base = root, anvil = anvilVersion()): string {
  const hash = createHash('sha256').update(`anvil ${anvil}\n`);
  for (const source of sources)
    hash
      .update(`${source}\n`)
      .update(readFileSync(join(base, source)))
      .update('\n');
  return hash.digest('hex').slice(0, 32);
}

/** One set-up's snapshot: where it is (or will be written), and whether it exists. */
export interface ChainSnapshot {
  path: string;
  exists: boolean;
  /** Dumps the chain at `rpcUrl` into `path`; only for a chain that began empty and holds the set-up alone. */
  save: (rpcUrl: string) => Promise<void>;
}

/** The snapshot of the current set-up in `dir`. */
export function chainSnapshot(dir = SNAPSHOT_DIR, key = setUpKey()): ChainSnapshot {
  const path = join(dir, `${key}.json`);
  let exists = false;
  try {
    exists = statSync(path).isFile();
  } catch {
    // Not made yet.
  }
  return { path, exists, save: (rpcUrl) => saveSnapshot(rpcUrl, dir, path) };
}

async function saveSnapshot(rpcUrl: string, dir: string, path: string): Promise<void> {
  const chain = localChain(rpcUrl);
  const dumped = await createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) }).dumpState();
  // anvil_dumpState answers the gzipped JSON that --state and --load-state read uncompressed.
  const json = gunzipSync(Buffer.from(dumped.slice(2), 'hex'));
  JSON.parse(json.toString('utf8')); // never keep something anvil would refuse to load
  mkdirSync(dir, { recursive: true });
  // Concurrent starts (test workers) may each write it: the rename makes every reader see a whole file.
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, json);
  renameSync(tmp, path);
  for (const name of readdirSync(dir)) {
    const other = join(dir, name);
    if (other === path) continue;
    try {
      if (Date.now() - statSync(other).mtimeMs > STALE_SNAPSHOT_MS) rmSync(other, { force: true });
    } catch {
      // Removed by a concurrent start.
    }
  }
}
