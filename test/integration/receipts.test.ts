/**
 * Sale receipts through the local stack: a transfer's unlock (X-PAYMENT) and an x402 v2 unlock
 * (a stock client's PAYMENT-SIGNATURE) answer a receipt, signed with the key GET
 * /.well-known/jwks.json publishes (the agent card's), whose claims are the ledger row as stored;
 * `npm run verify-receipt` and the documented one-liners check one offline. The buyers are fresh
 * accounts of the test mnemonic (80 and up; 170 for the escrowed sale), funded by writing their
 * balances, and the skills are ones no other file buys. An escrowed sale (x402 `auth-capture`)
 * answers a receipt that also names the escrow, the payment's hash, its authorize and its capture,
 * each held to what the chain shows.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { parseEther, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { RECEIPT_TYPE } from '../../lambdas/contract/receipt';
import type { LedgerRow } from '../../lambdas/ledger';
import { dynamoLedger } from '../../lambdas/ledger/adapters/dynamo-ledger';
import { chainTools } from '../support/chain';
import { escrowedOnChain } from '../support/escrow';
import { LOCAL_AUTH_CAPTURE_ESCROW } from '../../local/escrow';

const run = promisify(execFile);
const base = inject('baseUrl');
const USDC = inject('usdc') as Address;
const TREASURY = inject('treasury') as Address;
const chain = chainTools(inject('rpcUrl'));
const db = new DynamoDBClient({
  endpoint: inject('dynamoEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const ledger = dynamoLedger(db);
const dir = mkdtempSync(join(tmpdir(), 'receipts-'));
afterAll(() => {
  db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Skills no other test file buys. */
const BY_TRANSFER = 'schema-drift-detection';
const BY_SIGNATURE = 'dbt-test-coverage';
/** 0.25 USDC: under the stock auth-capture client's default limit of $1. */
const BY_ESCROW = 'chart-integrity-critic';

const getJson = async (path: string) => (await (await fetch(`${base}${path}`)).json()) as any;
const priceOf = async (skill: string): Promise<bigint> => BigInt((await getJson(`/api/pay?skill=${skill}`)).accepts[0].maxAmountRequired);
const sealOf = async (skill: string): Promise<string> => (await getJson(`/api/packs?skill=${skill}`)).seal.value;

let jwks: JSONWebKeySet;
let jwksFile: string;
beforeAll(async () => {
  jwks = await getJson('/.well-known/jwks.json');
  jwksFile = join(dir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(jwks));
});

/** The receipt's claims, verified against the published JWKS (ES256 only); its header checked too. */
async function verified(receipt: string): Promise<any> {
  const { payload, protectedHeader } = await compactVerify(receipt, createLocalJWKSet(jwks), { algorithms: ['ES256'] });
  expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: RECEIPT_TYPE, jku: `${base}/.well-known/jwks.json` });
  return JSON.parse(new TextDecoder().decode(payload));
}

/** What a receipt must say of a ledger row: every stored fact it states, and the seal recorded at claim time. */
const claimsOfRow = (row: LedgerRow) => ({
  iss: base,
  sub: row.skill,
  kind: 'unlock',
  pack: { seal: row.packSeal },
  amount: row.amount,
  asset: { symbol: row.asset, contract: row.assetContract, network: 'eip155:8453' },
  payer: row.payer,
  tx: row.txHash,
  time: row.recordedAt,
  ledger: { entry: `base:${row.txHash}`, block_number: row.blockNumber, block_hash: row.blockHash, log_index: row.logIndex },
});

/** A fresh account holding `usdc` of the test USDC and gas, written straight into the chain's state. */
async function funded(index: number, usdc: bigint) {
  const account = testAccount(index);
  await chain.setTokenBalance(USDC, account.address, usdc);
  await chain.setEthBalance(account.address, parseEther('1'));
  return account;
}

let byTransfer: { receipt: string; license: string; row: LedgerRow };
let byEscrow: { receipt: string; row: LedgerRow; captureTx: Hex };

describe('a receipt with every sale', () => {
  it("a transfer's unlock answers a receipt that verifies against /.well-known/jwks.json and states the ledger row, with the pack's seal", async () => {
    const price = await priceOf(BY_TRANSFER);
    const account = await funded(80, price);
    const tx = await chain.transfer(80, USDC, TREASURY, price);
    const res = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: tx, skill: BY_TRANSFER }) },
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.receipt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const row = (await ledger.get('base', tx))!;
    expect(row.packSeal).toBe(await sealOf(BY_TRANSFER));
    const claims = await verified(body.receipt);
    expect(claims).toMatchObject(claimsOfRow(row));
    expect(claims).toMatchObject({ amount: price.toString(), tx: tx.toLowerCase(), pack: { seal: body.seal } });
    expect(claims.payer.toLowerCase()).toBe(account.address.toLowerCase());
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
    // One service key: the agent card is signed with the key that signs receipts.
    const card = await getJson('/.well-known/agent-card.json');
    const cardKid = JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString('utf8')).kid;
    expect(decodeProtectedHeader(body.receipt).kid).toBe(cardKid);
    expect(jwks.keys.map((k) => k.kid)).toEqual([cardKid]);
    byTransfer = { receipt: body.receipt, license: body.license.token, row };
  });

  it('a replay and a license re-download answer the same sale (only iat may differ)', async () => {
    const { row } = byTransfer;
    const again = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': byTransfer.license } });
    const againBody = (await again.json()) as any;
    expect(again.status).toBe(200);
    const [first, second] = [await verified(byTransfer.receipt), await verified(againBody.receipt)];
    expect({ ...second, iat: 0 }).toEqual({ ...first, iat: 0 });
    const replay = await fetch(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash: row.txHash, skill: BY_TRANSFER }) },
    });
    const replayBody = (await replay.json()) as any;
    expect(replay.status, JSON.stringify(replayBody)).toBe(200);
    expect(replayBody.revenue_ledger.replayed).toBe(true);
    expect(await verified(replayBody.receipt)).toMatchObject(claimsOfRow(row));
  });

  it('an x402 v2 unlock (a stock client, PAYMENT-SIGNATURE) answers a receipt of the transfer the service settled', async () => {
    const price = await priceOf(BY_SIGNATURE);
    const account = await funded(81, price * 2n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account });
    const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${BY_SIGNATURE}`);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    const row = (await ledger.get('base', settlement.transaction))!;
    expect(row.packSeal).toBe(await sealOf(BY_SIGNATURE));
    const claims = await verified(body.receipt);
    expect(claims).toMatchObject(claimsOfRow(row));
    expect(claims).toMatchObject({ amount: price.toString(), tx: settlement.transaction.toLowerCase() });
    expect(claims.payer.toLowerCase()).toBe(account.address.toLowerCase());

    // The owner's client pays again (a stock client always signs): nothing is settled, and the pack comes with the purchase's receipt.
    const again = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${BY_SIGNATURE}`);
    const againBody = (await again.json()) as any;
    expect(again.status, JSON.stringify(againBody)).toBe(200);
    expect(againBody.access).toMatchObject({ via: 'one-time', charged_atomic: '0' });
    expect(await verified(againBody.receipt)).toMatchObject(claimsOfRow(row));
  });
  it('an escrowed sale (x402 auth-capture, a stock client) answers a receipt that names the escrow, the payment, its authorize and its capture', async () => {
    const price = await priceOf(BY_ESCROW);
    const account = testAccount(170);
    await chain.setTokenBalance(USDC, account.address, price * 2n);
    const client = new x402Client().register('eip155:8453', new AuthCaptureEvmScheme(account));
    const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${BY_ESCROW}`);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const authorizeTx = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction as Hex;
    // On chain: the authorize, then the operator's capture of the same payment.
    const { paymentHash, capture } = await escrowedOnChain(chain.pub, authorizeTx);

    const row = (await ledger.get('base', authorizeTx))!;
    expect(row).toMatchObject({
      scheme: 'auth-capture',
      escrow: LOCAL_AUTH_CAPTURE_ESCROW,
      paymentHash,
      captureTx: capture.transactionHash,
    });
    const claims = await verified(body.receipt);
    // Everything an exact sale's receipt states, the authorize being the transfer (into the escrow's collector, for the treasury)...
    expect(claims).toMatchObject(claimsOfRow(row));
    expect(claims).toMatchObject({ amount: price.toString(), tx: authorizeTx.toLowerCase() });
    expect(claims.payer.toLowerCase()).toBe(account.address.toLowerCase());
    // ...and the escrow's facts, each one checked against the chain.
    expect(claims.escrow).toEqual({
      scheme: 'auth-capture',
      contract: LOCAL_AUTH_CAPTURE_ESCROW,
      payment_hash: paymentHash,
      authorize_tx: authorizeTx.toLowerCase(),
      capture_tx: capture.transactionHash,
    });
    // The same sale signed again (the license's re-download) states the same escrow facts.
    const again = await fetch(`${base}/api/pay`, { method: 'POST', headers: { 'x-license': body.license.token } });
    const againBody = (await again.json()) as any;
    expect(again.status, JSON.stringify(againBody)).toBe(200);
    expect({ ...(await verified(againBody.receipt)), iat: 0 }).toEqual({ ...claims, iat: 0 });
    byEscrow = { receipt: body.receipt, row, captureTx: capture.transactionHash };
  });

  it("an exact sale's receipt says nothing of an escrow", async () => {
    expect(await verified(byTransfer.receipt)).not.toHaveProperty('escrow');
  });
});

describe('receipts of periods and top-ups', () => {
  it('a subscription period and a meter top-up answer receipts of their ledger rows, with no pack', async () => {
    const plan = (await getJson('/api/subscribe')).plans.find((p: any) => p.id !== 'all-access-30d' && p.scope !== 'all');
    const planPrice = BigInt(plan.amount_atomic);
    await funded(82, planPrice);
    const periodTx = await chain.transfer(82, USDC, TREASURY, planPrice);
    const period = await fetch(`${base}/api/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'start', plan: plan.id, txHash: periodTx }),
    });
    const periodBody = (await period.json()) as any;
    expect(period.status, JSON.stringify(periodBody)).toBe(200);
    const periodRow = (await ledger.get('base', periodTx))!;
    const { pack: _none, ...periodClaims } = claimsOfRow(periodRow);
    const signedPeriod = await verified(periodBody.receipt);
    expect(signedPeriod).toMatchObject({ ...periodClaims, kind: 'subscription', sub: plan.id, amount: planPrice.toString() });
    expect(signedPeriod).not.toHaveProperty('pack');

    const topUp = 1_000_000n;
    await funded(83, topUp);
    const topUpTx = await chain.transfer(83, USDC, TREASURY, topUp);
    const meter = await fetch(`${base}/api/meter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'top_up', txHash: topUpTx }),
    });
    const meterBody = (await meter.json()) as any;
    expect(meter.status, JSON.stringify(meterBody)).toBe(200);
    const { pack: _no, ...topUpClaims } = claimsOfRow((await ledger.get('base', topUpTx))!);
    expect(await verified(meterBody.receipt)).toMatchObject({ ...topUpClaims, kind: 'meter_top_up', sub: 'meter', amount: '1000000' });
  });
});

describe('verifying a receipt offline', () => {
  const tampered = (receipt: string): string => {
    const [header, payload, signature] = receipt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return `${header}.${Buffer.from(JSON.stringify({ ...claims, amount: '1' })).toString('base64url')}.${signature}`;
  };
  const verifyScript = (...args: string[]) =>
    run('npx', ['tsx', 'local/verify-receipt.ts', ...args], { cwd: process.cwd() }).then(
      (out) => ({ code: 0, ...out }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('npm run verify-receipt: a good receipt prints its claims and exits 0 (a saved jwks.json, or the pinned issuer’s); unpinned or tampered, it says why and exits 1', async () => {
    const good = await verifyScript(byTransfer.receipt, '--jwks', jwksFile);
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual(await verified(byTransfer.receipt));

    const file = join(dir, 'receipt.jws');
    writeFileSync(file, `${byTransfer.receipt}\n`);
    const fromFileAndIssuer = await verifyScript(`@${file}`, '--issuer', base);
    expect(fromFileAndIssuer.code, fromFileAndIssuer.stderr).toBe(0);
    expect(JSON.parse(fromFileAndIssuer.stdout).tx).toBe(byTransfer.row.txHash);
    // Neither --issuer nor --jwks: the receipt's own iss would choose the key that checks it (issue 50, finding 9).
    const unpinned = await verifyScript(`@${file}`);
    expect(unpinned).toMatchObject({ code: 1, stdout: '' });
    expect(unpinned.stderr.trim()).toMatch(/^The receipt was not pinned: /);

    const bad = await verifyScript(tampered(byTransfer.receipt), '--jwks', jwksFile);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim()).toBe('The signature does not verify: the receipt was changed, or another key signed it.');
    // An escrowed sale's: the same claims on stdout, and its escrow facts in one sentence on stderr.
    const escrowed = await verifyScript(byEscrow.receipt, '--jwks', jwksFile);
    expect(escrowed.code, escrowed.stderr).toBe(0);
    expect(JSON.parse(escrowed.stdout)).toEqual(await verified(byEscrow.receipt));
    const { escrow } = JSON.parse(escrowed.stdout);
    expect(escrowed.stderr.trim()).toBe(
      `Paid by escrow (x402 auth-capture): authorized into the escrow ${LOCAL_AUTH_CAPTURE_ESCROW} in ${byEscrow.row.txHash} as payment ${escrow.payment_hash}; captured to the seller in ${byEscrow.captureTx}.`,
    );
    expect(good.stderr).toBe('');

    const notOne = await verifyScript('not-a-receipt', '--jwks', jwksFile);
    expect(notOne).toMatchObject({ code: 1, stdout: '' });
    expect(notOne.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('the documented node one-liner (jose) prints the claims of a good receipt and fails on a tampered one', async () => {
    // Exactly as docs/PAYMENTS.md gives it (run where jose is installed: this checkout), with the receipt and a saved jwks.json.
    const oneLiner =
      "import('jose').then(async (j) => { const { payload } = await j.compactVerify(process.argv[1], j.createLocalJWKSet(JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'))), { algorithms: ['ES256'] }); console.log(new TextDecoder().decode(payload)); })";
    const node = (receipt: string) =>
      run('node', ['-e', oneLiner, receipt, jwksFile], { cwd: process.cwd() }).then(
        (out) => ({ code: 0, ...out }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const good = await node(byTransfer.receipt);
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual(await verified(byTransfer.receipt));
    expect((await node(tampered(byTransfer.receipt))).code).not.toBe(0);
  });

  // latchset's jose (Debian and Homebrew package `jose`): checked where it is installed, skipped elsewhere.
  const joseCli = spawnSync('jose', ['jws', 'ver', '--help'], { stdio: 'ignore' }).error === undefined;
  it.skipIf(!joseCli)('the documented jose CLI command verifies a good receipt and refuses a tampered one', async () => {
    const jose = (receipt: string) => {
      const file = join(dir, 'cli.jws');
      writeFileSync(file, receipt);
      return run('jose', ['jws', 'ver', '-i', file, '-k', jwksFile, '-O', '-']).then(
        (out) => ({ code: 0, ...out }),
        (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
      );
    };
    const good = await jose(byTransfer.receipt);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual(await verified(byTransfer.receipt));
    expect((await jose(tampered(byTransfer.receipt))).code).not.toBe(0);
  });
});
