/**
 * The relayer key pool's core (core/relayer-pool.ts) with fakes of its ports: a lease table that
 * holds one holder per key until expiry, and a chain whose nonces and balances the test sets.
 */
import { describe, expect, it } from 'vitest';
import { NoRelayerKeyFree, RelayerLeaseLost, relayerPool, type LeaseEvent } from '../../lambdas/facilitator/core/relayer-pool';
import type { RelayerKeyChain, RelayerLeases } from '../../lambdas/facilitator/ports';

const KEYS = ['0xaaa', '0xbbb', '0xccc'];
const MIN = 10n;

/** A clock the test moves; sleeping moves it. */
function clock() {
  let t = 1_000_000;
  return {
    now: () => t,
    // Yields to what else runs (the submissions holding keys), as a real wait would.
    sleep: async (ms: number) => {
      t += ms;
      await new Promise((r) => setImmediate(r));
    },
    advance: (ms: number) => void (t += ms),
  };
}

/** The lease table: what DynamoDB's conditional write decides, with a count of writes. */
function fakeLeases() {
  const items = new Map<string, { holder: string; expiresAt: number }>();
  let writes = 0;
  const leases: RelayerLeases = {
    async take(address, holder, now, until) {
      const item = items.get(address);
      if (item && item.expiresAt >= now && item.holder !== holder) return false;
      writes++;
      items.set(address, { holder, expiresAt: until });
      return true;
    },
    async release(address, holder) {
      if (items.get(address)?.holder === holder) {
        writes++;
        items.delete(address);
      }
    },
  };
  return { leases, items, writes: () => writes };
}

function fakeChain(balances: Record<string, bigint> = {}) {
  const nonces = new Map<string, number>();
  const reads = { state: 0, nonce: 0, balance: 0 };
  const chain: RelayerKeyChain = {
    async state(address) {
      reads.state++;
      return { nonce: nonces.get(address) ?? 0, balanceWei: balances[address] ?? 100n };
    },
    async nonce(address) {
      reads.nonce++;
      return nonces.get(address) ?? 0;
    },
    async balance(address) {
      reads.balance++;
      return balances[address] ?? 100n;
    },
  };
  return { chain, nonces, reads, balances };
}

const pool = (holder: string, leases: RelayerLeases, chain: RelayerKeyChain, c: ReturnType<typeof clock>, events: LeaseEvent[] = []) =>
  relayerPool(KEYS, leases, chain, {
    holder,
    minBalanceWei: MIN,
    leaseMs: 20_000,
    marginMs: 3_000,
    waitMs: 1_000,
    pollMs: 50,
    now: c.now,
    sleep: c.sleep,
    onLease: (e) => events.push(e),
  });

/** One submission: takes a key, signs with its nonce, and the node takes it. */
const submitOnce = (p: ReturnType<typeof relayerPool>, chain?: ReturnType<typeof fakeChain>) =>
  p.withKey(async (key) => {
    key.check();
    const nonce = await key.nonce();
    if (chain) chain.nonces.set(key.address, nonce + 1);
    key.sent();
    return { address: key.address, nonce };
  });

describe('relayer key pool', () => {
  it('reads the nonce once per lease and counts it after that: no lease write and no nonce read per submission', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const p = pool('one', l.leases, ch.chain, c);
    const used = [];
    for (let i = 0; i < 5; i++) {
      used.push(await submitOnce(p, ch));
      c.advance(1_000);
    }
    expect(used.map((u) => u.nonce)).toEqual([0, 1, 2, 3, 4]);
    expect(new Set(used.map((u) => u.address)).size).toBe(1);
    expect(l.writes()).toBe(1);
    expect(ch.reads).toEqual({ state: 1, nonce: 0, balance: 0 });
  });

  it('names the key it leases idle, the one a submission would get, and none while it is lent or running out', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const p = pool('one', l.leases, ch.chain, c);
    expect(p.idle()).toBeUndefined();
    const { address } = await submitOnce(p, ch);
    expect(p.idle()).toBe(address);
    let during: string | undefined = 'not asked';
    await p.withKey(async () => void (during = p.idle()));
    expect(during).toBeUndefined();
    // Naming it takes nothing: no lease write, and the next submission gets that key.
    const writes = l.writes();
    expect(p.idle()).toBe(address);
    expect(l.writes()).toBe(writes);
    expect((await submitOnce(p, ch)).address).toBe(address);
    // Within the safety margin of its lease's end it is not signed with, so not named either.
    c.advance(17_500);
    expect(p.idle()).toBeUndefined();
  });

  it('renews a lease with less than half its life left (reading the balance), and keeps the counted nonce', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const events: LeaseEvent[] = [];
    const p = pool('one', l.leases, ch.chain, c, events);
    await submitOnce(p, ch);
    c.advance(11_000);
    expect(await submitOnce(p, ch)).toMatchObject({ nonce: 1 });
    expect(events.map((e) => e.event)).toEqual(['taken', 'renewed']);
    expect(l.writes()).toBe(2);
    expect(ch.reads.balance).toBe(1);
    expect(ch.reads.nonce).toBe(0);
  });

  it('gives each holder its own key: two instances never sign with one key at once', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const [a, b] = [pool('a', l.leases, ch.chain, c), pool('b', l.leases, ch.chain, c)];
    const [ka, kb] = await Promise.all([submitOnce(a, ch), submitOnce(b, ch)]);
    expect(ka.address).not.toBe(kb.address);
    expect(l.items.get(ka.address)?.holder).toBe('a');
    expect(l.items.get(kb.address)?.holder).toBe('b');
  });

  it('lends a key to one submission of a holder at a time; a second key taken at once goes back once idle', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const events: LeaseEvent[] = [];
    // The pool's timers, run when the test says their time has come.
    const timers: { at: number; fn: () => void }[] = [];
    const p = relayerPool(KEYS, l.leases, ch.chain, {
      holder: 'one',
      minBalanceWei: MIN,
      waitMs: 1_000,
      spareIdleMs: 10,
      now: c.now,
      sleep: c.sleep,
      later: (ms, fn) => void timers.push({ at: c.now() + ms, fn }),
      onLease: (e) => events.push(e),
    });
    let release!: () => void;
    const first = p.withKey(async (key) => {
      await new Promise<void>((r) => (release = r));
      return key.address;
    });
    await new Promise((r) => setTimeout(r, 0));
    const second = await p.withKey(async (key) => key.address);
    release();
    expect(await first).not.toBe(second);
    // Kept while the burst may go on; then the spare one goes back for other instances, and one stays held.
    expect(l.items.size).toBe(2);
    c.advance(9);
    for (const t of timers.filter((t) => t.at <= c.now())) t.fn();
    await new Promise((r) => setImmediate(r));
    expect(l.items.size).toBe(2);
    c.advance(1);
    for (const t of timers.filter((t) => t.at <= c.now())) t.fn();
    await new Promise((r) => setImmediate(r));
    expect(events.filter((e) => e.event === 'released').map((e) => (e as { why: string }).why)).toEqual(['spare']);
    expect(l.items.size).toBe(1);
  });

  it('a pool of one key every instance shares gives it back once idle (returnLastKey), so another instance takes it after a burst, not a lease', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const timers: { at: number; fn: () => void }[] = [];
    const later = (ms: number, fn: () => void) => void timers.push({ at: c.now() + ms, fn });
    const run = async () => {
      for (const t of timers.filter((t) => t.at <= c.now())) t.fn();
      await new Promise((r) => setImmediate(r));
    };
    const operator = [KEYS[0]!];
    const opts = { minBalanceWei: MIN, waitMs: 1_000, spareIdleMs: 10, now: c.now, sleep: c.sleep, later, returnLastKey: true };
    const a = relayerPool(operator, l.leases, ch.chain, { ...opts, holder: 'a' });
    const b = relayerPool(operator, l.leases, ch.chain, { ...opts, holder: 'b' });
    expect(await a.withKey(async (key) => key.address)).toBe(KEYS[0]);
    expect(l.items.get(KEYS[0]!)?.holder).toBe('a');
    c.advance(10);
    await run();
    // Given back after 10 ms idle, far short of the lease's 20 s: the other instance takes it at once.
    expect(l.items.has(KEYS[0]!)).toBe(false);
    expect(await b.withKey(async (key) => key.address)).toBe(KEYS[0]);
    expect(l.items.get(KEYS[0]!)?.holder).toBe('b');
    // Without the option the last key stays with its holder for the lease's life.
    const l2 = fakeLeases();
    const kept = relayerPool(operator, l2.leases, ch.chain, { ...opts, returnLastKey: false, holder: 'c' });
    await kept.withKey(async () => undefined);
    c.advance(10);
    await run();
    expect(l2.items.get(KEYS[0]!)?.holder).toBe('c');
  });

  it('never lends one key to two submissions of a holder that look for a key at the same moment', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    // Time moves only as the waiting submissions sleep: a wait long enough for the work to end.
    const p = relayerPool(KEYS, l.leases, ch.chain, { holder: 'one', minBalanceWei: MIN, waitMs: 600_000, now: c.now, sleep: c.sleep });
    const inUse = new Set<string>();
    const twice: string[] = [];
    const used = await Promise.all(
      [...KEYS, ...KEYS].map(() =>
        p.withKey(async (key) => {
          if (inUse.has(key.address)) twice.push(key.address);
          inUse.add(key.address);
          for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
          inUse.delete(key.address);
          return key.address;
        }),
      ),
    );
    expect(twice).toEqual([]);
    expect(used).toHaveLength(2 * KEYS.length);
  });

  it('signs only under a lease the table holds for it, even while a spare key is being given back', async () => {
    const c = clock();
    const l = fakeLeases();
    const { take, release } = l.leases;
    // Writes take a while (as DynamoDB's do): submissions look for keys meanwhile.
    l.leases.release = async (address, holder) => {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      await release(address, holder);
    };
    l.leases.take = async (...args) => {
      await new Promise((r) => setImmediate(r));
      return take(...args);
    };
    const ch = fakeChain();
    const p = relayerPool(KEYS, l.leases, ch.chain, { holder: 'one', minBalanceWei: MIN, waitMs: 600_000, now: c.now, sleep: c.sleep });
    const unleased: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, () =>
        p.withKey(async (key) => {
          for (let i = 0; i < 8; i++) {
            if (l.items.get(key.address)?.holder !== 'one') unleased.push(key.address);
            await new Promise((r) => setImmediate(r));
          }
        }),
      ),
    );
    expect(unleased).toEqual([]);
  });

  it('waits for a key while every key is leased elsewhere, then fails within the bound', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    for (const k of KEYS) await l.leases.take(k, 'other', c.now(), c.now() + 60_000);
    const p = pool('one', l.leases, ch.chain, c);
    const started = c.now();
    await expect(submitOnce(p, ch)).rejects.toBeInstanceOf(NoRelayerKeyFree);
    expect(c.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(c.now() - started).toBeLessThan(1_200);
  });

  it('takes a key whose holder vanished once its lease ran out, reading its nonce again', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    for (const k of KEYS) await l.leases.take(k, 'frozen', c.now(), c.now() + 500);
    ch.nonces.set('0xaaa', 7).set('0xbbb', 7).set('0xccc', 7);
    const p = pool('one', l.leases, ch.chain, c);
    expect(await submitOnce(p, ch)).toMatchObject({ nonce: 7 });
  });

  it('leaves a key short of ETH out (not tried again for a while) and uses the funded ones', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain({ '0xaaa': 1n, '0xbbb': 1n });
    const events: LeaseEvent[] = [];
    const p = pool('one', l.leases, ch.chain, c, events);
    for (let i = 0; i < 4; i++) expect((await submitOnce(p, ch)).address).toBe('0xccc');
    expect(events.filter((e) => e.event === 'short').map((e) => e.address)).toEqual(['0xaaa', '0xbbb']);
    expect(l.items.has('0xaaa')).toBe(false);
    // All short: nothing is signed, the submission fails in bounded time.
    const poor = pool('two', fakeLeases().leases, fakeChain({ '0xaaa': 1n, '0xbbb': 1n, '0xccc': 1n }).chain, c);
    await expect(submitOnce(poor)).rejects.toBeInstanceOf(NoRelayerKeyFree);
  });

  it('gives a key up at renewal when it fell short of ETH', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const p = pool('one', l.leases, ch.chain, c);
    const first = await submitOnce(p, ch);
    ch.balances[first.address] = 1n;
    c.advance(11_000);
    const second = await submitOnce(p, ch);
    expect(second.address).not.toBe(first.address);
    expect(l.items.has(first.address)).toBe(false);
  });

  it('reads the nonce again after a gap', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const p = pool('one', l.leases, ch.chain, c);
    await submitOnce(p, ch);
    // Someone (a stored transaction rebroadcast, an operator) used nonce 1 meanwhile.
    ch.nonces.set('0xaaa', 2).set('0xbbb', 2).set('0xccc', 2);
    const gapped = await p.withKey(async (key) => {
      const n = await key.nonce();
      key.gap();
      return { n, again: await key.nonce() };
    });
    expect(gapped).toEqual({ n: 1, again: 2 });
    expect(ch.reads.nonce).toBe(1);
  });

  it('refuses to sign once the lease is within its safety margin of running out', async () => {
    const c = clock();
    const l = fakeLeases();
    const ch = fakeChain();
    const p = pool('one', l.leases, ch.chain, c);
    await expect(
      p.withKey(async (key) => {
        c.advance(17_500);
        key.check();
      }),
    ).rejects.toBeInstanceOf(RelayerLeaseLost);
  });
});
