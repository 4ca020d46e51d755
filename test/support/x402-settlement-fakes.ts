/**
 * The x402 v2 settlement's own ports as fakes that keep their rules (the settlements table's
 * conditional writes, a relayer on a chain the test describes), and a stock client's header:
 * shared by the settlement's unit tests and the access route's (parse once).
 */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { AppError } from '../../lambdas/platform/errors';
import { unlockWithAuthorization } from '../../lambdas/payments/authorization';
import { checkSignedPayment } from '../../lambdas/payments/payment-signature';
import { decodePaymentHeader } from '../../lambdas/payments/payment-header';
import { x402PaymentRequiredHeader } from '../../lambdas/payments/adapters/x402-payment-required';
import { x402BazaarExtension } from '../../lambdas/payments/adapters/x402-bazaar';
import { x402PaymentIdentifiers } from '../../lambdas/facilitator/adapters/x402-payment-identifier';
import type { ConfirmationJob, PaymentsPorts } from '../../lambdas/payments/ports';
import type {
  FundsHold,
  LastSettled,
  PaymentIdRecord,
  PriceFeed,
  Relayer,
  RelayedReceipt,
  SettlementRecord,
  Settlements,
} from '../../lambdas/facilitator/ports';

export const catalog = loadCatalogFiles();
export const reading = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });
export const BASE = 'https://m.example';
export const SKILL = 'agent-x402-first-buy';
export const PRICE = BigInt(catalog.get(SKILL)!.x402.amount);
export const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const NOW = new Date('2026-11-25T10:00:00Z');
export const nowSeconds = Math.floor(NOW.getTime() / 1000);

/** The settlements table as its conditional writes behave, the payer items and the hour items included. */
type FakePayer = { held: Map<string, FundsHold>; coolUntil?: number; releasedAt?: number; lastSettled?: Map<string, LastSettled> };

export function fakeSettlements(): Settlements & {
  items: Map<string, SettlementRecord>;
  payers: Map<string, FakePayer>;
  hours: Map<string, bigint>;
} {
  const items = new Map<string, SettlementRecord>();
  const payers = new Map<string, FakePayer>();
  const hours = new Map<string, bigint>();
  const paymentIds = new Map<string, PaymentIdRecord>();
  const payer = (p: string) => {
    let item = payers.get(p.toLowerCase());
    if (!item) payers.set(p.toLowerCase(), (item = { held: new Map() }));
    return item;
  };
  const inflight = (p: string, token: string) =>
    [...payer(p).held.values()].filter((h) => h.token === token.toLowerCase()).reduce((s, h) => s + h.amount, 0n);
  return {
    items,
    payers,
    hours,
    get: async (pk) => items.get(pk),
    async claim(record) {
      const existing = items.get(record.pk);
      if (existing) return { claimed: false, existing };
      items.set(record.pk, record);
      return { claimed: true };
    },
    async rememberPaymentId(record) {
      const key = `${record.payer}#${record.id}`;
      const existing = paymentIds.get(key);
      if (existing) return { first: false, existing };
      paymentIds.set(key, record);
      return { first: true };
    },
    async consume(record) {
      const existing = items.get(record.pk);
      if (existing) return { consumed: false, existing };
      items.set(record.pk, record);
      return { consumed: true };
    },
    async takeOver(pk, lease, next) {
      const r = items.get(pk);
      if (!r || r.state !== 'claimed' || r.lease !== lease) return false;
      items.set(pk, { ...r, lease: next.lease, claimedAt: next.claimedAt });
      return true;
    },
    async signed(pk, lease, tx) {
      const r = items.get(pk);
      if (!r || r.state !== 'claimed' || r.lease !== lease) return false;
      items.set(pk, { ...r, state: 'signed', ...tx });
      return true;
    },
    async replaced(pk, replaces, tx) {
      const r = items.get(pk);
      if (!r || r.state !== 'signed' || r.txHash !== replaces) return false;
      items.set(pk, { ...r, ...tx });
      return true;
    },
    async finish(pk, outcome) {
      const r = items.get(pk);
      if (!r || (r.state !== 'claimed' && r.state !== 'signed')) return false;
      items.set(pk, { ...r, ...outcome });
      return true;
    },
    async hold(h, now) {
      const item = payer(h.payer);
      const otherTokens = () => [...item.held.keys()].filter((pk) => pk !== h.pk);
      const lastSettled = item.lastSettled?.get(h.token.toLowerCase());
      if (item.held.has(h.pk)) return { kind: 'held', releasedAt: item.releasedAt, otherTokens: otherTokens(), lastSettled };
      if (item.coolUntil !== undefined && item.coolUntil > now) return { kind: 'cooling', until: item.coolUntil };
      if (inflight(h.payer, h.token) > 0n) return { kind: 'busy' };
      const others = otherTokens();
      item.held.set(h.pk, { ...h, token: h.token.toLowerCase() });
      return { kind: 'held', releasedAt: item.releasedAt, otherTokens: others, lastSettled };
    },
    async release(h, opts = {}) {
      const item = payer(h.payer);
      if (item.held.delete(h.pk)) {
        item.releasedAt = Date.now();
        if (opts.settled) (item.lastSettled ??= new Map()).set(h.token.toLowerCase(), { pk: h.pk, ...opts.settled });
      }
      if (opts.coolUntil !== undefined) item.coolUntil = opts.coolUntil;
    },
    holds: async (token, p) => [...payer(p).held.values()].filter((h) => h.token === token.toLowerCase()),
    async addRevertedGas(hour, wei) {
      hours.set(hour, (hours.get(hour) ?? 0n) + wei);
    },
    async escrowStep(pk, move, fields) {
      const r = items.get(pk);
      const stage = r?.escrowStage ?? 'authorized';
      const at = move.from === 'authorized' ? r?.scheme === 'auth-capture' && stage === 'authorized' : stage === move.from;
      if (!r || r.state !== 'settled' || !at) return false;
      if (move.tx && (r as unknown as Record<string, unknown>)[move.tx.field] !== move.tx.value) return false;
      items.set(pk, { ...r, ...fields, escrowStage: move.to });
      return true;
    },
  };
}

let nonces = 0;
export const header = (opts: { validBefore?: string; skill?: string; paymentId?: string; from?: string } = {}): string =>
  Buffer.from(
    JSON.stringify({
      x402Version: 2,
      resource: { url: `${BASE}/api/pay?skill=${opts.skill ?? SKILL}` },
      accepted: {
        scheme: 'exact',
        network: 'eip155:8453',
        asset: reading.config.assets.USDC,
        amount: PRICE.toString(),
        payTo: reading.config.treasury,
        maxTimeoutSeconds: 60,
        extra: {},
      },
      payload: {
        signature: `0x${'11'.repeat(65)}`,
        authorization: {
          from: opts.from ?? PAYER,
          to: reading.config.treasury,
          value: PRICE.toString(),
          validAfter: '0',
          validBefore: opts.validBefore ?? String(nowSeconds + 60),
          nonce: `0x${(++nonces).toString(16).padStart(64, '0')}`,
        },
      },
      // What a client sends under x402's payment-identifier: the challenge's declaration with its id appended.
      ...(opts.paymentId !== undefined
        ? {
            extensions:
              opts.paymentId.length >= 16
                ? appendPaymentIdentifierToExtensions(structuredClone(x402PaymentIdentifiers.declaration), opts.paymentId)
                : { 'payment-identifier': { info: { required: false, id: opts.paymentId } } },
          }
        : {}),
    }),
  ).toString('base64');

/** The settlement of a header as the route hands it on: decoded and shape-checked once (signedPaymentFor). */
export const unlock = (h: string, ...rest: Parameters<typeof unlockWithAuthorization> extends [unknown, ...infer R] ? R : never) =>
  unlockWithAuthorization(checkSignedPayment(decodePaymentHeader(h), 'PAYMENT-SIGNATURE', {}), ...rest);

export const RELAYER_KEY = '0x71bE63f3384f5fb98995898A86B02Fb2426c5788';

/** A relayer on a chain the test describes: the payer's balance, and what a sent transaction's receipt says. */
export function fakeRelayer(chain: {
  balance: bigint;
  pendingBalance?: bigint;
  receipt?: RelayedReceipt | undefined;
  wouldRevert?: boolean;
}) {
  const sent: string[] = [];
  const relayer: Relayer = {
    isRelayer: async (address) => address.toLowerCase() === RELAYER_KEY.toLowerCase(),
    prepare: (_token, payment) => ({ from: payment.payload.authorization.from, nonce: payment.payload.authorization.nonce }),
    async submit(_token, payment, record) {
      if (chain.wouldRevert) return { kind: 'would_revert', message: 'execution reverted' };
      const txHash = `0x${payment.payload.authorization.nonce.slice(2, 66)}`;
      if (!(await record({ txHash, raw: '0x01', from: RELAYER_KEY }))) return { kind: 'declined' };
      sent.push(txHash);
      return { kind: 'sent', txHash, raw: '0x01' };
    },
    async send(call, record) {
      if (chain.wouldRevert) return { kind: 'would_revert', message: 'execution reverted' };
      const txHash = `0x${createHash('sha256').update(`${call.to}${call.data}${sent.length}`).digest('hex')}`;
      if (!(await record({ txHash, raw: '0x02', from: RELAYER_KEY }))) return { kind: 'declined' };
      sent.push(txHash);
      return { kind: 'sent', txHash, raw: '0x02' };
    },
    rebroadcast: async () => 'sent',
    receipt: async () => chain.receipt,
    authorizationUsed: async () => false,
    fundsAhead: async () => ({ balance: chain.balance, pendingBalance: chain.pendingBalance ?? chain.balance, authorizationUsed: false }),
    authorizationTransfer: async () => undefined,
    balances: async () => [{ address: RELAYER_KEY, balanceWei: 10n ** 18n }],
  };
  return { relayer, sent };
}

/** The `ethUsdFeed` setting pointed at an address with no code: every read fails, as viem's multicall does there. */
export const feedWithoutCode: PriceFeed = {
  roundAt: async (feed) => {
    throw new Error(`The contract function "decimals" returned no data ("0x") at ${feed}.`);
  },
};

export function portsWith(
  relayer: Relayer,
  settlements: Settlements,
  scheduled: ConfirmationJob[] = [],
  now = () => NOW,
  priceFeed: PriceFeed = feedWithoutCode,
): PaymentsPorts {
  return {
    config: reading.config,
    configReading: reading,
    catalog,
    now,
    confirmations: { schedule: async (job: ConfirmationJob) => (scheduled.push(job), 'started' as const) },
    x402: {
      verifier: { verify: async () => ({ ok: true as const }) },
      relayer,
      settlements,
      priceFeed,
      paymentIds: x402PaymentIdentifiers,
    },
    paymentRequiredHeader: x402PaymentRequiredHeader,
    discoveryExtension: x402BazaarExtension,
  } as unknown as PaymentsPorts;
}

export const refusal = async (p: Promise<unknown>): Promise<AppError> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
};
