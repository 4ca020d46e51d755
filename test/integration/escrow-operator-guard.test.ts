/**
 * The escrow operator as a deployment has it: a KMS key (here the SDK talking to a KMS stand-in
 * that holds a secp256k1 key, test/support/kms-stand-in.ts) on its own anvil, its account not yet
 * delegated to EscrowOperatorGuard. Without the guard a payer who front-runs the operator's
 * authorize costs the operator 1.72 wei per attacker wei (docs/SECURITY.md, I2), so the service must
 * not offer auth-capture at all; `npm run guard-operator`, signing through KMS, delegates the
 * account; then a stock escrow client buys through the guard.
 *
 * Relayer key 46 and the KMS keys (fresh random keys) are this file's own.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { erc20Abi, parseEther, parseEventLogs, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { delegationCode, ESCROW_OPERATOR_GUARD } from '../../lambdas/contract/auth-capture';
import { ensureRelayer, ensureTestTokens, startAnvil } from '../../local/anvil';
import { AUTH_CAPTURE_ESCROW_ABI, ensureAuthCaptureEscrow, LOCAL_AUTH_CAPTURE_ESCROW } from '../../local/escrow';
import { chainTools } from '../support/chain';
import { startKmsStandIn } from '../support/kms-stand-in';
import { killStarted, sharedStackEnv, withStarted } from '../support/spawn-start';

const stopAfter: (() => Promise<void>)[] = [];
afterAll(async () => {
  killStarted();
  for (const stop of stopAfter) await stop();
});

const shared = sharedStackEnv(inject);
/** Under the stock client's default $1 cap (bought on other chains too: this file's buyer is its own). */
const SKILL = 'architecture-decision-record';
const escrowOnly = (account: PrivateKeyAccount) => new x402Client().register('eip155:8453', new AuthCaptureEvmScheme(account));
/** The KMS key id the deployment's functions are given (any id: the stand-in holds one key). */
const KEY_ID = 'alias/escrow-operator';

/** `npm run guard-operator` as an operator runs it against a deployment: its RPC, its KMS key, their own AWS credentials. */
function guardOperator(env: Record<string, string>): Promise<{ code: number; out: any; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'local/guard-operator.ts'],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: {
          PATH: process.env['PATH'],
          HOME: process.env['HOME'],
          ...env,
          AWS_ACCESS_KEY_ID: 'operator',
          AWS_SECRET_ACCESS_KEY: 'operator',
        },
      },
      (err, stdout, stderr) => {
        let out: unknown;
        try {
          out = JSON.parse(stdout);
        } catch {
          out = stdout;
        }
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out, err: stderr });
      },
    );
  });
}

describe("a deployment's KMS escrow operator, not yet delegated to its guard", () => {
  it('offers no auth-capture and sends nothing; npm run guard-operator delegates it through KMS; then a stock escrow client buys through the guard', async () => {
    const anvil = await startAnvil({ port: 0, blockTime: 0 });
    stopAfter.push(anvil.stop);
    const [tokens, , relayer] = await Promise.all([
      ensureTestTokens(anvil.rpcUrl),
      ensureAuthCaptureEscrow(anvil.rpcUrl),
      ensureRelayer(anvil.rpcUrl, 46),
    ]);
    const chain = chainTools(anvil.rpcUrl);
    const operatorKey = generatePrivateKey();
    const operator = privateKeyToAccount(operatorKey).address;
    await chain.setEthBalance(operator, parseEther('1'));
    const kms = await startKmsStandIn({ signingKey: operatorKey });
    stopAfter.push(kms.close);
    // The functions' own credentials, as a Lambda's role gives them (the stand-in checks none).
    const kmsEnv = {
      ESCROW_OPERATOR_KMS_KEY_ID: KEY_ID,
      AWS_ENDPOINT_URL_KMS: kms.base,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'function',
      AWS_SECRET_ACCESS_KEY: 'function',
    };
    const env = {
      ...shared,
      ...kmsEnv,
      RPC_URLS: anvil.rpcUrl,
      USDC_ADDRESS: tokens.USDC,
      USDBC_ADDRESS: tokens.USDbC,
      RELAYER_PRIVATE_KEYS: relayer.privateKey,
    };
    const buyer = privateKeyToAccount(generatePrivateKey());
    await chain.setTokenBalance(tokens.USDC, buyer.address, 10n ** 9n);
    const schemesOf = (accepts: Array<{ scheme: string }>) => [...new Set(accepts.map((a) => a.scheme))];

    // Not delegated: the 402 and the discovery list offer exact alone; a client that pays only by escrow cannot pay.
    await withStarted(env, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=${SKILL}`;
      const challenge = await fetch(url);
      expect(challenge.status).toBe(402);
      const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString('utf8'));
      expect(schemesOf(required.accepts)).toEqual(['exact']);
      const listed = (await (await fetch(`${s.baseUrl}/.well-known/x402`)).json()) as any;
      expect(listed.items.flatMap((i: any) => schemesOf(i.accepts))).not.toContain('auth-capture');
      await expect(wrapFetchWithPayment(fetch, escrowOnly(buyer))(url)).rejects.toThrow(/auth-capture|scheme/i);
    });
    // The key was read (its address is what an offer would name), and never signed with.
    expect(kms.calls('GetPublicKey')).toBeGreaterThan(0);
    expect(await chain.pub.getTransactionCount({ address: operator })).toBe(0);
    expect(kms.calls('Sign')).toBe(0);

    // The operator's step, signed by KMS: the guard placed by the CREATE2 deployer, the account delegated.
    const toolEnv = { ...kmsEnv, RPC_URLS: anvil.rpcUrl };
    const first = await guardOperator(toolEnv);
    expect(first.code, `${JSON.stringify(first.out)} ${first.err}`).toBe(0);
    expect(first.out).toMatchObject({ ok: true, operator, guard: ESCROW_OPERATOR_GUARD, chainId: 8453 });
    expect(first.out.placedGuard).toMatch(/^0x[0-9a-f]{64}$/);
    expect(first.out.delegated).toMatch(/^0x[0-9a-f]{64}$/);
    const placing = await chain.pub.getTransactionReceipt({ hash: first.out.placedGuard });
    const delegation = await chain.pub.getTransactionReceipt({ hash: first.out.delegated });
    console.log(`npm run guard-operator: placing the guard ${placing.gasUsed} gas, the delegation ${delegation.gasUsed} gas`);
    expect(delegation.from.toLowerCase()).toBe(operator.toLowerCase());
    expect(((await chain.pub.getCode({ address: operator })) ?? '').toLowerCase()).toBe(delegationCode(ESCROW_OPERATOR_GUARD));
    expect(kms.calls('Sign')).toBeGreaterThanOrEqual(3);
    // Again, naming the key by its ARN (the stack's output) and no region: the key's own region is
    // used, and there is nothing more to do, nothing sent.
    const nonce = await chain.pub.getTransactionCount({ address: operator });
    const signedFor = kms.regions.length;
    const again = await guardOperator({
      RPC_URLS: anvil.rpcUrl,
      AWS_ENDPOINT_URL_KMS: kms.base,
      ESCROW_OPERATOR_KMS_KEY_ID: 'arn:aws:kms:eu-west-2:123456789012:key/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b',
    });
    expect(again.code, JSON.stringify(again.out)).toBe(0);
    expect(again.out.placedGuard).toBeUndefined();
    expect(again.out.delegated).toBeUndefined();
    expect(await chain.pub.getTransactionCount({ address: operator })).toBe(nonce);
    expect(new Set(kms.regions.slice(signedFor))).toEqual(new Set(['eu-west-2']));
    // A KMS key whose account holds no ETH: refused before anything is signed, saying what to send where.
    const unfunded = await startKmsStandIn({ signingKey: generatePrivateKey() });
    stopAfter.push(unfunded.close);
    const refused = await guardOperator({ ...toolEnv, AWS_ENDPOINT_URL_KMS: unfunded.base });
    expect(refused.code).toBe(1);
    expect(refused.out).toMatchObject({ ok: false, reason: 'operator_unfunded' });
    expect(unfunded.calls('Sign')).toBe(0);

    // Started again (a deployment's functions read it again within a minute): offered, and bought through the guard.
    await withStarted(env, async (s) => {
      const url = `${s.baseUrl}/api/pay?skill=${SKILL}`;
      const before = await chain.pub.getBlockNumber();
      const res = await wrapFetchWithPayment(
        fetch,
        escrowOnly(buyer),
      )(url).catch((e: unknown) => {
        throw new Error(`${(e as Error).message}\n${s.output()}`);
      });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.sealed_pack.files).toHaveProperty('SKILL.md');
      const authorizeTx = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction as `0x${string}`;
      const authorize = await chain.pub.getTransactionReceipt({ hash: authorizeTx });
      // Sent by the KMS key, to its own account: through the guard.
      expect(authorize.from.toLowerCase()).toBe(operator.toLowerCase());
      expect(authorize.to?.toLowerCase()).toBe(operator.toLowerCase());
      const logs = await chain.pub.getContractEvents({
        address: LOCAL_AUTH_CAPTURE_ESCROW,
        abi: AUTH_CAPTURE_ESCROW_ABI,
        fromBlock: before + 1n,
      });
      expect(logs.map((l) => l.eventName)).toEqual(expect.arrayContaining(['PaymentAuthorized', 'PaymentCaptured']));
      const paid = parseEventLogs({ abi: erc20Abi, logs: authorize.logs, eventName: 'Transfer' });
      expect(paid.some((l) => (l.args.from as Address).toLowerCase() === buyer.address.toLowerCase())).toBe(true);
    });
  }, 120_000);
});
