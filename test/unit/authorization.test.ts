/**
 * The x402 v2 settlement's bookkeeping with fakes of its own ports: what is stored on the
 * settlement record around the relayer's submission, before anything reaches a chain.
 */
import { describe, expect, it } from 'vitest';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';
import { readMarketConfig } from '../../lambdas/platform/config';
import { AppError } from '../../lambdas/platform/errors';
import { unlockWithAuthorization } from '../../lambdas/payments/authorization';
import type { ConfirmationJob, PaymentsPorts, Relayer, SettlementRecord, Settlements } from '../../lambdas/payments/ports';

const catalog = loadCatalogFiles();
const reading = readMarketConfig({ treasury: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' }, { requireTreasury: true });
const BASE = 'https://m.example';
const SKILL = 'agent-x402-first-buy';

/** The settlements table as its conditional writes behave. */
function fakeSettlements(): Settlements & { items: Map<string, SettlementRecord> } {
  const items = new Map<string, SettlementRecord>();
  return {
    items,
    get: async (pk) => items.get(pk),
    async claim(record) {
      const existing = items.get(record.pk);
      if (existing) return { claimed: false, existing };
      items.set(record.pk, record);
      return { claimed: true };
    },
    async takeOver() {
      return false;
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
    async finish() {},
  };
}

const header = (): string =>
  Buffer.from(
    JSON.stringify({
      x402Version: 2,
      accepted: {
        scheme: 'exact',
        network: 'eip155:8453',
        asset: reading.config.assets.USDC,
        amount: '5000',
        payTo: reading.config.treasury,
        maxTimeoutSeconds: 60,
        extra: {},
      },
      payload: {
        signature: `0x${'11'.repeat(65)}`,
        authorization: {
          from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          to: reading.config.treasury,
          value: '5000',
          validAfter: '0',
          validBefore: '9999999999',
          nonce: `0x${'22'.repeat(32)}`,
        },
      },
    }),
  ).toString('base64');

describe('unlockWithAuthorization', () => {
  it('stores a transaction signed again after its nonce was taken as the replacement of the refused one, and follows it', async () => {
    const settlements = fakeSettlements();
    const [first, second] = [`0x${'aa'.repeat(32)}`, `0x${'bb'.repeat(32)}`];
    // A relayer whose first transaction's nonce another instance took: it signs again, naming the refused one.
    const relayer: Relayer = {
      address: async () => '0x71bE63f3384f5fb98995898A86B02Fb2426c5788',
      async submit(_token, _payment, record) {
        if (!(await record({ txHash: first, raw: '0x01' }))) return undefined;
        if (!(await record({ txHash: second, raw: '0x02' }, first))) return undefined;
        return { txHash: second, raw: '0x02' };
      },
      rebroadcast: async () => 'sent',
      receipt: async () => undefined, // not mined within the request: the loop takes over
      authorizationUsed: async () => false,
      balance: async () => 10n ** 18n,
    };
    const scheduled: ConfirmationJob[] = [];
    const ports = {
      config: reading.config,
      configReading: reading,
      catalog,
      now: () => new Date('2026-11-25T10:00:00Z'),
      confirmations: { schedule: async (job: ConfirmationJob) => (scheduled.push(job), 'started' as const) },
      x402: { verifier: { verify: async () => ({ ok: true as const }) }, relayer, settlements },
    } as unknown as PaymentsPorts;

    const refusal = await unlockWithAuthorization(header(), SKILL, ports, BASE, { sourceIp: '10.0.0.1' }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).details).toEqual({ reason: 'settlement_pending' });
    const response = JSON.parse(Buffer.from((refusal as AppError).headers!['payment-response']!, 'base64').toString('utf8'));
    expect(response).toMatchObject({ success: false, transaction: second, network: 'eip155:8453', errorReason: 'settlement_pending' });
    const [stored] = [...settlements.items.values()];
    expect(stored).toMatchObject({ state: 'signed', txHash: second, raw: '0x02' });
    expect(scheduled).toEqual([expect.objectContaining({ txHash: second, skill: SKILL, relayed: true })]);
  });
});
