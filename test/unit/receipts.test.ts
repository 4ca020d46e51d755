import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { RECEIPT_TYPE } from '../../lambdas/contract/receipt';
import type { VersionsOf } from '../../lambdas/contract/pack-versions';
import { jwks, jwkThumbprint, noReceipt, receiptClaims, signReceipt, type CardSale, type LedgerRow } from '../../lambdas/ledger';
import { keyFileServiceSigner } from '../../lambdas/ledger/adapters/key-file-service-signer';

const BASE = 'https://market.example';
const SEAL = 'a'.repeat(64);
const NOW = new Date('2026-11-26T12:00:00Z');
const signer = keyFileServiceSigner(undefined);
/** The skills' published versions: csv-cleaner's version 2 is the seal its sale recorded. */
const VERSIONS: VersionsOf = (skill) =>
  skill === 'csv-cleaner' || skill === 'ten-send'
    ? [
        { version: 1, digest: 'f'.repeat(64) },
        { version: 2, digest: SEAL },
      ]
    : undefined;

const row: LedgerRow = {
  network: 'base',
  txHash: `0x${'1'.repeat(64)}`,
  skill: 'csv-cleaner',
  amount: '1500000',
  price: '1000000',
  asset: 'USDC',
  assetContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payer: '0x1111111111111111111111111111111111111111',
  blockNumber: '1234',
  blockHash: `0x${'b'.repeat(64)}`,
  logIndex: 3,
  confirmations: 2,
  recordedAt: '2026-11-26T11:59:00.000Z',
  status: 'confirmed',
  claimSource: 'never-published',
  packSeal: SEAL,
};

const sale: CardSale = {
  id: 'chk_abc',
  protocol: 'acp',
  skill: 'ten-send',
  amountCents: 1900,
  priceCents: 1900,
  currency: 'usd',
  stripeSessionId: 'cs_test_1',
  paymentIntent: 'pi_1',
  livemode: false,
  recordedAt: '2026-11-26T11:00:00.000Z',
  status: 'paid',
  packSeal: SEAL,
};

const keySet = async () => createLocalJWKSet(await jwks(signer));
const claimsOf = async (jws: string) => JSON.parse(new TextDecoder().decode((await compactVerify(jws, await keySet())).payload));

describe('receipt claims', () => {
  it("state an unlock from its ledger row alone: skill, seal, amount and asset, payer, tx, time, ledger position; never the caller's pseudonym", () => {
    const claims = receiptClaims(row, BASE, NOW, VERSIONS);
    expect(claims).toEqual({
      iss: BASE,
      sub: 'csv-cleaner',
      kind: 'unlock',
      pack: { seal: SEAL, version: 2 },
      amount: '1500000',
      asset: { symbol: 'USDC', contract: row.assetContract, network: 'eip155:8453' },
      payer: row.payer,
      tx: row.txHash,
      time: row.recordedAt,
      ledger: { entry: `base:${row.txHash}`, block_number: '1234', block_hash: row.blockHash, log_index: 3 },
      iat: NOW.getTime() / 1000,
    });
    expect(JSON.stringify(claims)).not.toContain('never-published');
  });

  it('name the version whose digest the sale recorded (issue 52), and no version for a seal from before versions were', () => {
    expect(receiptClaims({ ...row, packSeal: 'f'.repeat(64) }, BASE, NOW, VERSIONS).pack).toEqual({ seal: 'f'.repeat(64), version: 1 });
    expect(receiptClaims({ ...row, packSeal: 'e'.repeat(64) }, BASE, NOW, VERSIONS).pack).toEqual({ seal: 'e'.repeat(64) });
    expect(receiptClaims({ ...row, skill: 'other' }, BASE, NOW, VERSIONS).pack).toEqual({ seal: SEAL });
  });

  it('say nothing of the pack for a row or sale recorded without its seal (nothing invented), nor for a subscription or a top-up', () => {
    const { packSeal: _r, ...oldRow } = row;
    expect(receiptClaims(oldRow, BASE, NOW, VERSIONS)).not.toHaveProperty('pack');
    const { packSeal: _s, ...oldSale } = sale;
    expect(receiptClaims(oldSale, BASE, NOW, VERSIONS)).not.toHaveProperty('pack');
    expect(receiptClaims({ ...oldRow, kind: 'subscription', skill: 'all-access-30d' }, BASE, NOW, VERSIONS)).toMatchObject({
      kind: 'subscription',
      sub: 'all-access-30d',
    });
    expect(receiptClaims({ ...row, kind: 'meter_top_up', skill: 'meter' }, BASE, NOW, VERSIONS)).not.toHaveProperty('pack');
  });

  it('state a card sale by its amount in cents and its checkout session, with no payer or tx', () => {
    const claims = receiptClaims(sale, BASE, NOW, VERSIONS);
    expect(claims).toMatchObject({
      kind: 'card',
      sub: 'ten-send',
      pack: { seal: SEAL, version: 2 },
      card: { amount_cents: 1900, currency: 'usd', session: 'chk_abc', processor: 'stripe' },
      time: sale.recordedAt,
      ledger: { entry: 'card:chk_abc' },
    });
    expect(claims).not.toHaveProperty('payer');
    expect(claims).not.toHaveProperty('tx');
  });

  it('state an escrowed sale (x402 auth-capture) by its escrow, payment hash, authorize and capture; with no capture sent, no capture_tx', () => {
    const escrowed: LedgerRow = {
      ...row,
      scheme: 'auth-capture',
      escrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
      paymentHash: `0x${'c'.repeat(64)}`,
      settlement: 'eip155:8453#0xusdc#0xpayer#0xnonce',
      captureTx: `0x${'d'.repeat(64)}`,
    };
    const claims = receiptClaims(escrowed, BASE, NOW, VERSIONS);
    expect(claims).toEqual({
      ...receiptClaims(row, BASE, NOW, VERSIONS),
      escrow: {
        scheme: 'auth-capture',
        contract: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
        payment_hash: `0x${'c'.repeat(64)}`,
        authorize_tx: row.txHash,
        capture_tx: `0x${'d'.repeat(64)}`,
      },
    });
    // The settlement's key is the service's own bookkeeping: never stated.
    expect(JSON.stringify(claims)).not.toContain('#0xnonce');
    const { captureTx: _c, ...uncaptured } = escrowed;
    expect(receiptClaims(uncaptured, BASE, NOW, VERSIONS).escrow).toEqual({
      scheme: 'auth-capture',
      contract: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
      payment_hash: `0x${'c'.repeat(64)}`,
      authorize_tx: row.txHash,
    });
    // An exact sale's receipt is as it was: no escrow claim, the same keys in the same order.
    expect(Object.keys(receiptClaims(row, BASE, NOW, VERSIONS))).toEqual([
      'iss',
      'sub',
      'kind',
      'pack',
      'amount',
      'asset',
      'payer',
      'tx',
      'time',
      'ledger',
      'iat',
    ]);
  });

  it('refuse a claim a reorg dropped: it is no sale', () => {
    expect(noReceipt({ ...row, status: 'reorged' })).toMatch(/reorganisation/);
    expect(noReceipt(row)).toBeUndefined();
    expect(() => receiptClaims({ ...row, status: 'reorged' }, BASE, NOW, VERSIONS)).toThrow(/No receipt/);
  });
});

describe('signed receipts', () => {
  it("verify with jose against the service key's JWKS; the header names the key, its JWKS and the receipt type", async () => {
    const jws = await signReceipt(row, BASE, signer, VERSIONS, NOW);
    expect(jws.split('.')).toHaveLength(3);
    expect(await claimsOf(jws)).toEqual(receiptClaims(row, BASE, NOW, VERSIONS));
    expect(decodeProtectedHeader(jws)).toEqual({
      alg: 'ES256',
      typ: RECEIPT_TYPE,
      jku: `${BASE}/.well-known/jwks.json`,
      kid: jwkThumbprint(await signer.publicJwk()),
    });
  });

  it('signed again later state the same sale (only iat differs)', async () => {
    const first = await claimsOf(await signReceipt(sale, BASE, signer, VERSIONS, NOW));
    const later = await claimsOf(await signReceipt(sale, BASE, signer, VERSIONS, new Date(NOW.getTime() + 86_400_000)));
    expect({ ...later, iat: 0 }).toEqual({ ...first, iat: 0 });
    expect(later.iat - first.iat).toBe(86_400);
  });

  it('fail to verify when a claim is changed, when the signature is, or against another key', async () => {
    const jws = await signReceipt(row, BASE, signer, VERSIONS, NOW);
    const [header, payload, signature] = jws.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...claims, amount: '150000000' })).toString('base64url');
    await expect(compactVerify(`${header}.${forged}.${signature}`, await keySet())).rejects.toThrow(/signature verification failed/);
    const flipped = Buffer.from(signature, 'base64url');
    flipped[10] = flipped[10]! ^ 1;
    await expect(compactVerify(`${header}.${payload}.${flipped.toString('base64url')}`, await keySet())).rejects.toThrow();
    const other = keyFileServiceSigner(undefined);
    const otherSet = createLocalJWKSet({ keys: (await jwks(other)).keys.map((k) => ({ ...k, kid: jwkThumbprint(k) })) });
    await expect(compactVerify(jws, otherSet)).rejects.toThrow();
  });
});

describe('the local service key file', () => {
  it('is made once: every signer built on it (one per local function) has the same key, and no draft is left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-key-'));
    try {
      const file = join(dir, 'keys', 'service-key.json');
      const kids = await Promise.all(Array.from({ length: 5 }, async () => jwkThumbprint(await keyFileServiceSigner(file).publicJwk())));
      expect(new Set(kids).size).toBe(1);
      expect(readdirSync(join(dir, 'keys'))).toEqual(['service-key.json']);
      // A damaged key file is an error to look at, never silently replaced by a new key.
      writeFileSync(file, '{not json');
      expect(() => keyFileServiceSigner(file)).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
