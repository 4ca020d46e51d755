/**
 * The relayer's key pool: which key signs the next transaction, and with which nonce.
 *
 * Every key has a lease (RelayerLeases: one item per key, conditional writes with an expiry):
 * one holder (a function instance) signs with a key at a time, so the key's nonce is counted by
 * that holder alone, read once when the lease is taken and incremented after each transaction it
 * stores and sends. Instances never race for a nonce and sign in parallel, each with its own key.
 * Within a holder each key serves one submission at a time (the local server runs several at
 * once; a Lambda instance one). A held lease is reused while valid and renewed only when less
 * than half its life is left, so a purchase adds no lease write in the steady state.
 *
 * A key short of ETH leaves the pool: its balance is read when its lease is taken or renewed and
 * a short key is given back and not tried again for a while. Which transfers are the relayer's
 * own is every key's business, short or not (`isRelayer` in the adapter).
 */
import type { RelayerKeyChain, RelayerLeases } from '../ports';

export interface RelayerPoolOptions {
  /** This instance's name in the lease table: random, one per process. */
  holder: string;
  /** ETH (wei) a key must hold to be leased for new settlements (relayerMinBalanceEth). */
  minBalanceWei: bigint;
  /** A lease's life. */
  leaseMs?: number;
  /** A lease with less than this left is not signed with: clocks of instances differ a little, and a signature takes time. */
  marginMs?: number;
  /** How long a submission waits for a free key before it fails (503, retry). */
  waitMs?: number;
  /** Between two looks for a free key. */
  pollMs?: number;
  /** A key found short of ETH is not tried again for this long. */
  shortRecheckMs?: number;
  /** A holder's second (third, ...) key goes back after it has been idle this long: kept across a burst, returned after it. */
  spareIdleMs?: number;
  /**
   * Its last key goes back too once idle for `spareIdleMs`: for a pool of one key every instance
   * shares (the escrow operator, whose address the escrow requires), so another instance, or the
   * operator's refund tool, waits at most for a burst of this one's, never for a whole lease.
   */
  returnLastKey?: boolean;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Runs `fn` after `ms`, off any submission's path and keeping no process alive: a spare key's return. */
  later?: (ms: number, fn: () => void) => void;
  /** Told of each lease taken and given up (the operators' log; the 4-process test reads it). */
  onLease?: (event: LeaseEvent) => void;
}

export type LeaseEvent =
  | { event: 'taken'; address: string; holder: string; at: number; until: number; nonce: number }
  | { event: 'renewed'; address: string; holder: string; at: number; until: number }
  | { event: 'released'; address: string; holder: string; at: number; why: 'short_of_eth' | 'spare' | 'lost' }
  | { event: 'short'; address: string; holder: string; at: number; balanceWei: string }
  /** The counted nonce was lost (the node refused it, or a send failed midway): read again next time. */
  | { event: 'gap'; address: string; holder: string; at: number };

/** One key lent to one submission: its address, the nonce to sign with, and what happened to it. */
export interface KeyInUse {
  address: string;
  /** The key's next nonce: the counted one, or read again after a gap. */
  nonce(): Promise<number>;
  /** Throws unless the lease is still ours with the safety margin left: called just before each signature. */
  check(): void;
  /** The transaction with `nonce()` was stored and the node took it: the next one follows it. */
  sent(): void;
  /** The nonce is no longer known (the node said it was taken, too high, or a send failed midway): read it again next time. */
  gap(): void;
}

/** Every key is leased to other instances (or short of ETH) and none came free in time. */
export class NoRelayerKeyFree extends Error {
  constructor(waitedMs: number) {
    super(`no relayer key came free in ${waitedMs} ms: every key is leased or short of ETH`);
  }
}

/** The lease is no longer ours (it ran out while this instance was paused): nothing is signed with it. */
export class RelayerLeaseLost extends Error {}

interface Held {
  until: number;
  /** When its last submission ended. */
  idleSince?: number | undefined;
  /** The next nonce, while counted; undefined after a gap. */
  nonce: number | undefined;
  busy: boolean;
  /** Its release is being written: it no longer counts as the key this holder keeps. */
  leaving?: boolean;
}

export const RELAYER_LEASE_DEFAULTS = {
  leaseMs: 20_000,
  marginMs: 3_000,
  waitMs: 15_000,
  pollMs: 50,
  shortRecheckMs: 60_000,
  spareIdleMs: 2_000,
} as const;

export interface RelayerPool {
  /** Runs `work` with a key leased to this holder and lent to it alone; the key is free for the next submission after. */
  withKey<T>(work: (key: KeyInUse) => Promise<T>): Promise<T>;
  /** A key this holder leases and nobody uses now (the one a submission would likely get): nothing is taken or written. */
  idle(): string | undefined;
}

export function relayerPool(
  addresses: readonly string[],
  leases: RelayerLeases,
  chain: RelayerKeyChain,
  opts: RelayerPoolOptions,
): RelayerPool {
  const o = { ...RELAYER_LEASE_DEFAULTS, ...opts };
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const later = o.later ?? ((ms: number, fn: () => void) => void setTimeout(fn, ms).unref?.());
  const tell = o.onLease ?? (() => undefined);
  const keys = addresses.map((a) => a.toLowerCase());
  const held = new Map<string, Held>();
  const shortUntil = new Map<string, number>();
  let turn = 0;

  const usable = (h: Held): boolean => h.until - now() > o.marginMs;

  /** A key this holder already leases, idle and valid: renewed first when half its life is gone. */
  async function reuse(): Promise<string | undefined> {
    for (const [address, h] of held) {
      if (h.busy || !usable(h)) continue;
      h.busy = true;
      if (h.until - now() >= o.leaseMs / 2) return address;
      try {
        const balance = await chain.balance(address);
        if (balance < o.minBalanceWei) {
          await giveUp(address, 'short_of_eth', balance);
          continue;
        }
        const at = now();
        const until = at + o.leaseMs;
        // Renewed while still ours: nobody else signed with it, so the counted nonce holds.
        if (await leases.take(address, o.holder, at, until)) {
          h.until = until;
          tell({ event: 'renewed', address, holder: o.holder, at, until });
          return address;
        }
        held.delete(address);
        tell({ event: 'released', address, holder: o.holder, at: now(), why: 'lost' });
      } catch (e) {
        h.busy = false;
        throw e;
      }
    }
    return undefined;
  }

  /** A key nobody holds (or whose lease ran out): taken by conditional write, its nonce and ETH read once. */
  async function acquire(): Promise<string | undefined> {
    // Start at a different key each time, so instances looking at once spread over the pool.
    const start = turn++ % keys.length;
    for (let i = 0; i < keys.length; i++) {
      const address = keys[(start + i) % keys.length]!;
      const mine = held.get(address);
      if (mine && (mine.busy || usable(mine))) continue;
      if ((shortUntil.get(address) ?? 0) > now()) continue;
      const at = now();
      const until = at + o.leaseMs;
      // Marked as ours and busy before the write: another submission of this holder, looking at
      // the same moment, must not take it too (the table would say yes to the same holder).
      // Ours but run out: taken again like any free key, and its nonce read again (someone may have used it meanwhile).
      const h: Held = { until: 0, nonce: undefined, busy: true };
      held.set(address, h);
      let taken = false;
      try {
        taken = await leases.take(address, o.holder, at, until);
      } finally {
        if (!taken) held.delete(address);
      }
      if (!taken) continue;
      h.until = until;
      try {
        const state = await chain.state(address);
        if (state.balanceWei < o.minBalanceWei) {
          await giveUp(address, 'short_of_eth', state.balanceWei);
          continue;
        }
        h.nonce = state.nonce;
        // `at`: when this holder may sign with it (the write was applied); `until` counts from before the write.
        tell({ event: 'taken', address, holder: o.holder, at: now(), until, nonce: state.nonce });
        return address;
      } catch (e) {
        h.busy = false;
        throw e;
      }
    }
    return undefined;
  }

  async function giveUp(address: string, why: 'short_of_eth' | 'spare', balance?: bigint): Promise<void> {
    // Kept marked busy until the release is written: a submission of this holder taking it again
    // meanwhile would find the table still saying "yours", then lose it to the release.
    const h = held.get(address);
    if (h) {
      h.busy = true;
      h.leaving = true;
    }
    if (why === 'short_of_eth') {
      shortUntil.set(address, now() + o.shortRecheckMs);
      tell({ event: 'short', address, holder: o.holder, at: now(), balanceWei: String(balance) });
    }
    // `at`: when this holder stopped signing with it, before the write that frees it for others.
    const at = now();
    try {
      await leases.release(address, o.holder);
      tell({ event: 'released', address, holder: o.holder, at, why });
    } finally {
      if (held.get(address) === h) held.delete(address);
    }
  }

  async function take(): Promise<string> {
    const started = now();
    for (;;) {
      const address = (await reuse()) ?? (await acquire());
      if (address !== undefined) return address;
      if (now() - started >= o.waitMs) throw new NoRelayerKeyFree(now() - started);
      // A little jitter, so waiting instances do not look in step.
      await sleep(o.pollMs + Math.floor(Math.random() * o.pollMs));
    }
  }

  return {
    idle: () => [...held].find(([, h]) => !h.busy && !h.leaving && usable(h))?.[0],
    async withKey(work) {
      const address = await take();
      const h = held.get(address)!;
      const key: KeyInUse = {
        address,
        async nonce() {
          h.nonce ??= await chain.nonce(address);
          return h.nonce;
        },
        check() {
          if (held.get(address) !== h || !usable(h))
            throw new RelayerLeaseLost(`the lease of relayer key ${address} ran out before signing`);
        },
        sent() {
          if (h.nonce !== undefined) h.nonce++;
        },
        gap() {
          h.nonce = undefined;
          tell({ event: 'gap', address, holder: o.holder, at: now() });
        },
      };
      try {
        return await work(key);
      } finally {
        h.busy = false;
        h.idleSince = now();
        // A holder keeps one lease between submissions (a Lambda instance's steady state: no write per
        // purchase). One more, taken while several submissions ran here at once (the local server), is
        // kept while the burst lasts (the next submission reuses it: no lease write, no nonce read)
        // and goes back once idle for `spareIdleMs`, off the purchase's path, so an idle process keeps
        // no key other instances wait for.
        if (held.size > 1 || o.returnLastKey) {
          const idleSince = h.idleSince;
          // Another key must stay: two spares idle since the same moment each see the other until one is leaving.
          const another = (): boolean => o.returnLastKey === true || [...held].some(([a, other]) => a !== address && !other.leaving);
          later(o.spareIdleMs, () => {
            if (held.get(address) === h && !h.busy && h.idleSince === idleSince && another())
              void giveUp(address, 'spare').catch(() => undefined);
          });
        }
      }
    },
  };
}
