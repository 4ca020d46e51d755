/**
 * Issue 53: base/commerce-payments' v1.0 AuthCaptureEscrow, ERC-3009 collector and operator refund
 * collector on a fresh anvil at the published v1.0 addresses, wired as deployed on Base (the
 * collectors name the escrow, the ERC-3009 one Multicall3 too, the escrow's TokenStore
 * implementation names the escrow), found again on the same chain without a second deployment, and
 * taking a payment the stock x402 client signed: authorized into the operator's token store, then
 * captured to the receiver or voided back to the buyer; a captured one refunded from the
 * operator's own balance through the refund collector.
 */
import {
  AUTH_CAPTURE_ESCROW_V1_0_ADDRESS,
  EIP3009_TOKEN_COLLECTOR_V1_0_ADDRESS,
  resolveAuthCaptureDeployment,
  type AuthCaptureEip3009Payload,
} from '@x402/evm';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getContractAddress,
  http,
  parseEther,
  zeroAddress,
  type Address,
  type Hex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_EIP712, CAIP2, MULTICALL3 } from '../../lambdas/contract/chain';
import { AUTH_CAPTURE_DEPLOYMENTS } from '../../lambdas/contract/networks';
import { ensureTestTokens, startAnvil, testAccount, TREASURY_ACCOUNT_INDEX, type AnvilHandle } from '../../local/anvil';
import {
  AUTH_CAPTURE_ESCROW_ABI,
  ERC3009_PAYMENT_COLLECTOR_ABI,
  ESCROW_DEPLOYER_INDEX,
  LOCAL_AUTH_CAPTURE_ESCROW,
  LOCAL_ERC3009_PAYMENT_COLLECTOR,
  LOCAL_OPERATOR_REFUND_COLLECTOR,
  OPERATOR_REFUND_COLLECTOR_ABI,
  TOKEN_STORE_ABI,
  ensureAuthCaptureEscrow,
  type LocalEscrow,
} from '../../local/escrow';
import { localChain } from '../../local/local-chain';
import { chainTools } from '../support/chain';

/** Buyers of the capture and the void case, and the operator (x402's captureAuthorizer): accounts no other set-up uses. */
const BUYER_INDEX = 150;
const VOID_BUYER_INDEX = 151;
const OPERATOR_INDEX = 152;
/** The buyer of the refund case (issue 53 item 4's range, 160–165). */
const REFUND_BUYER_INDEX = 160;
const AMOUNT = 490_000n;

let anvil: AnvilHandle;
let first: LocalEscrow;
let second: LocalEscrow;
let USDC: Address;

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  // The test USDC at Base's address, as npm start places it: the asset the payments below are in.
  [{ USDC }, first] = await Promise.all([ensureTestTokens(anvil.rpcUrl), ensureAuthCaptureEscrow(anvil.rpcUrl)]);
  second = await ensureAuthCaptureEscrow(anvil.rpcUrl);
});
afterAll(async () => anvil?.stop());

const pub = () => createPublicClient({ chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
const read = (address: Address, abi: typeof AUTH_CAPTURE_ESCROW_ABI, functionName: string, args: readonly unknown[] = []) =>
  pub().readContract({ address, abi, functionName, args });

describe('the auth-capture escrow on the local chain', () => {
  it('is placed once at the published v1.0 addresses, the stock client’s, wired as on Base', async () => {
    expect(LOCAL_AUTH_CAPTURE_ESCROW).toBe(AUTH_CAPTURE_ESCROW_V1_0_ADDRESS);
    expect(LOCAL_ERC3009_PAYMENT_COLLECTOR).toBe(EIP3009_TOKEN_COLLECTOR_V1_0_ADDRESS);
    expect(resolveAuthCaptureDeployment(LOCAL_AUTH_CAPTURE_ESCROW)?.eip3009Collector).toBe(LOCAL_ERC3009_PAYMENT_COLLECTOR);
    // The service's own table of deployments (what the operator's refund names) agrees with the stock client's.
    expect(AUTH_CAPTURE_DEPLOYMENTS[0]).toMatchObject({
      escrow: LOCAL_AUTH_CAPTURE_ESCROW,
      tokenCollector: LOCAL_ERC3009_PAYMENT_COLLECTOR,
      refundCollector: LOCAL_OPERATOR_REFUND_COLLECTOR,
    });
    expect(first).toEqual({
      escrow: LOCAL_AUTH_CAPTURE_ESCROW,
      collector: LOCAL_ERC3009_PAYMENT_COLLECTOR,
      refundCollector: LOCAL_OPERATOR_REFUND_COLLECTOR,
      reused: false,
    });
    expect(second).toEqual({ ...first, reused: true });
    // The escrow, a TokenStore naming the escrow and the two collectors, made at temporary addresses and copied.
    expect(await pub().getTransactionCount({ address: testAccount(ESCROW_DEPLOYER_INDEX).address })).toBe(4);

    expect(await read(LOCAL_ERC3009_PAYMENT_COLLECTOR, ERC3009_PAYMENT_COLLECTOR_ABI, 'authCaptureEscrow')).toBe(LOCAL_AUTH_CAPTURE_ESCROW);
    expect(await read(LOCAL_ERC3009_PAYMENT_COLLECTOR, ERC3009_PAYMENT_COLLECTOR_ABI, 'multicall3')).toBe(MULTICALL3);
    // The refund collector names the escrow too, and is of the Refund type (1) the escrow's `refund` requires.
    expect(await read(LOCAL_OPERATOR_REFUND_COLLECTOR, OPERATOR_REFUND_COLLECTOR_ABI, 'authCaptureEscrow')).toBe(LOCAL_AUTH_CAPTURE_ESCROW);
    expect(await read(LOCAL_OPERATOR_REFUND_COLLECTOR, OPERATOR_REFUND_COLLECTOR_ABI, 'collectorType')).toBe(1);
    // The implementation the escrow clones for each operator names the escrow at its new address.
    const store = (await read(LOCAL_AUTH_CAPTURE_ESCROW, AUTH_CAPTURE_ESCROW_ABI, 'tokenStoreImplementation')) as Address;
    expect(await pub().getCode({ address: store })).toMatch(/^0x[0-9a-f]{10,}/);
    expect(await read(store, TOKEN_STORE_ABI, 'authCaptureEscrow')).toBe(LOCAL_AUTH_CAPTURE_ESCROW);
  });

  it('adds the refund collector alone to a chain kept from before it, at the deployer’s next nonce', async () => {
    // Such a chain: the escrow and the ERC-3009 collector in place, the deployer's three transactions sent.
    const test = chainTools(anvil.rpcUrl).test;
    const deployerAddress = testAccount(ESCROW_DEPLOYER_INDEX).address;
    await test.setCode({ address: LOCAL_OPERATOR_REFUND_COLLECTOR, bytecode: '0x' });
    // …and the deployer's fourth address never used (a contract's account has a nonce of its own too).
    const fourth = getContractAddress({ from: deployerAddress, nonce: 3n });
    await test.setCode({ address: fourth, bytecode: '0x' });
    await test.setNonce({ address: fourth, nonce: 0 });
    await test.setNonce({ address: deployerAddress, nonce: 3 });
    const escrowCode = await pub().getCode({ address: LOCAL_AUTH_CAPTURE_ESCROW });

    expect(await ensureAuthCaptureEscrow(anvil.rpcUrl)).toEqual({ ...first, reused: false });
    expect(await pub().getTransactionCount({ address: deployerAddress })).toBe(4);
    expect(await read(LOCAL_OPERATOR_REFUND_COLLECTOR, OPERATOR_REFUND_COLLECTOR_ABI, 'authCaptureEscrow')).toBe(LOCAL_AUTH_CAPTURE_ESCROW);
    expect(await pub().getCode({ address: LOCAL_AUTH_CAPTURE_ESCROW })).toBe(escrowCode);
    expect(await ensureAuthCaptureEscrow(anvil.rpcUrl)).toEqual({ ...first, reused: true });
  });

  describe('takes a payment the stock x402 client signed', () => {
    const operator = testAccount(OPERATOR_INDEX);
    const treasury = testAccount(TREASURY_ACCOUNT_INDEX).address;
    const balance = (who: Address) => pub().readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    const operatorSends = async (functionName: string, args: readonly unknown[]): Promise<void> => {
      const chain = localChain(anvil.rpcUrl);
      const wallet = createWalletClient({ account: operator, chain, transport: http(anvil.rpcUrl) });
      const hash = await wallet.writeContract({ address: LOCAL_AUTH_CAPTURE_ESCROW, abi: AUTH_CAPTURE_ESCROW_ABI, functionName, args });
      expect((await pub().waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe('success');
    };

    /** A buyer funded with the test USDC, its payload from AuthCaptureEvmScheme, and the PaymentInfo the operator rebuilds from it. */
    async function signedPayment(buyerIndex: number) {
      const tools = chainTools(anvil.rpcUrl);
      const buyer = testAccount(buyerIndex);
      await tools.setTokenBalance(USDC, buyer.address, 10n ** 9n);
      await tools.setEthBalance(operator.address, parseEther('1'));
      const now = Math.floor(Date.now() / 1000);
      const extra = {
        ...ASSET_EIP712.USDC,
        captureAuthorizer: operator.address,
        feeRecipient: zeroAddress,
        captureDeadline: now + 600,
        refundDeadline: now + 3600,
        minFeeBps: 0,
        maxFeeBps: 0,
        authCaptureEscrow: LOCAL_AUTH_CAPTURE_ESCROW,
        paymentFlow: 'escrow',
      };
      const { payload } = await new AuthCaptureEvmScheme(buyer).createPaymentPayload(2, {
        scheme: 'auth-capture',
        network: CAIP2,
        amount: String(AMOUNT),
        asset: USDC,
        payTo: treasury,
        maxTimeoutSeconds: 60,
        extra,
      });
      const { authorization, signature, salt } = payload as AuthCaptureEip3009Payload;
      // Signed to the published collector, which is where the local one is.
      expect(authorization.to).toBe(LOCAL_ERC3009_PAYMENT_COLLECTOR);
      const paymentInfo = {
        operator: extra.captureAuthorizer,
        payer: buyer.address,
        receiver: treasury,
        token: USDC,
        maxAmount: AMOUNT,
        preApprovalExpiry: Number(authorization.validBefore),
        authorizationExpiry: extra.captureDeadline,
        refundExpiry: extra.refundDeadline,
        minFeeBps: extra.minFeeBps,
        maxFeeBps: extra.maxFeeBps,
        feeReceiver: extra.feeRecipient,
        salt: BigInt(salt),
      };
      // The client's ERC-3009 nonce is the escrow's own payer-agnostic hash of the PaymentInfo.
      expect(await read(LOCAL_AUTH_CAPTURE_ESCROW, AUTH_CAPTURE_ESCROW_ABI, 'getHash', [{ ...paymentInfo, payer: zeroAddress }])).toBe(
        authorization.nonce,
      );
      const hash = (await read(LOCAL_AUTH_CAPTURE_ESCROW, AUTH_CAPTURE_ESCROW_ABI, 'getHash', [paymentInfo])) as Hex;
      const state = async () => read(LOCAL_AUTH_CAPTURE_ESCROW, AUTH_CAPTURE_ESCROW_ABI, 'paymentState', [hash]);
      const store = (await read(LOCAL_AUTH_CAPTURE_ESCROW, AUTH_CAPTURE_ESCROW_ABI, 'getTokenStore', [operator.address])) as Address;
      return { buyer: buyer.address, paymentInfo, signature, state, store };
    }

    it('authorizes it into the operator’s token store and captures it to the receiver', async () => {
      const { buyer, paymentInfo, signature, state, store } = await signedPayment(BUYER_INDEX);
      const [buyerBefore, treasuryBefore] = [await balance(buyer), await balance(treasury)];

      await operatorSends('authorize', [paymentInfo, AMOUNT, LOCAL_ERC3009_PAYMENT_COLLECTOR, signature]);
      expect(await balance(buyer)).toBe(buyerBefore - AMOUNT);
      expect(await balance(store)).toBe(AMOUNT);
      expect(await balance(treasury)).toBe(treasuryBefore);
      expect(await state()).toEqual([true, AMOUNT, 0n]);

      await operatorSends('capture', [paymentInfo, AMOUNT, 0, zeroAddress]);
      expect(await balance(buyer)).toBe(buyerBefore - AMOUNT);
      expect(await balance(store)).toBe(0n);
      expect(await balance(treasury)).toBe(treasuryBefore + AMOUNT);
      expect(await state()).toEqual([true, 0n, AMOUNT]);
      // The first capture cloned the implementation for this operator: the store runs the TokenStore naming the escrow.
      expect(await read(store, TOKEN_STORE_ABI, 'authCaptureEscrow')).toBe(LOCAL_AUTH_CAPTURE_ESCROW);
    });

    it('voids an authorization, returning the amount to the buyer', async () => {
      const { buyer, paymentInfo, signature, state, store } = await signedPayment(VOID_BUYER_INDEX);
      const [buyerBefore, treasuryBefore, storeBefore] = [await balance(buyer), await balance(treasury), await balance(store)];

      await operatorSends('authorize', [paymentInfo, AMOUNT, LOCAL_ERC3009_PAYMENT_COLLECTOR, signature]);
      expect(await balance(buyer)).toBe(buyerBefore - AMOUNT);
      expect(await balance(store)).toBe(storeBefore + AMOUNT);

      await operatorSends('void', [paymentInfo]);
      expect(await balance(buyer)).toBe(buyerBefore);
      expect(await balance(store)).toBe(storeBefore);
      expect(await balance(treasury)).toBe(treasuryBefore);
      expect(await state()).toEqual([true, 0n, 0n]);
    });

    it('refunds a captured payment from the operator’s own balance, through the refund collector, to the buyer', async () => {
      const { buyer, paymentInfo, signature, state, store } = await signedPayment(REFUND_BUYER_INDEX);
      const buyerBefore = await balance(buyer);
      await operatorSends('authorize', [paymentInfo, AMOUNT, LOCAL_ERC3009_PAYMENT_COLLECTOR, signature]);
      await operatorSends('capture', [paymentInfo, AMOUNT, 0, zeroAddress]);
      expect(await balance(buyer)).toBe(buyerBefore - AMOUNT);
      const storeBefore = await balance(store);

      // The refund's tokens are the operator's: it holds them and lets the refund collector take them.
      await chainTools(anvil.rpcUrl).setTokenBalance(USDC, operator.address, AMOUNT);
      const wallet = createWalletClient({ account: operator, chain: localChain(anvil.rpcUrl), transport: http(anvil.rpcUrl) });
      const approval = await wallet.writeContract({
        address: USDC,
        abi: erc20Abi,
        functionName: 'approve',
        args: [LOCAL_OPERATOR_REFUND_COLLECTOR, AMOUNT],
      });
      await pub().waitForTransactionReceipt({ hash: approval, pollingInterval: 50 });
      // Only the escrow may call a collector: nobody takes the operator's allowance but the operator's own refund.
      await expect(
        wallet.writeContract({
          address: LOCAL_OPERATOR_REFUND_COLLECTOR,
          abi: OPERATOR_REFUND_COLLECTOR_ABI,
          functionName: 'collectTokens',
          args: [paymentInfo, operator.address, AMOUNT, '0x'],
        }),
      ).rejects.toThrow();

      await operatorSends('refund', [paymentInfo, AMOUNT, LOCAL_OPERATOR_REFUND_COLLECTOR, '0x']);
      expect(await balance(buyer)).toBe(buyerBefore);
      expect(await balance(operator.address)).toBe(0n);
      expect(await balance(store)).toBe(storeBefore);
      expect(await state()).toEqual([true, 0n, 0n]);
    });
  });
});
