import { toFacilitatorEvmSigner, verifyTypedDataSignature } from '@x402/evm';
import {
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  keccak256,
  maxUint256,
  parseAbi,
  toBytes,
  zeroAddress,
  type Hex,
} from 'viem';
import { delegationCode, ESCROW_OPERATOR_GUARD, paymentInfoOf, type PaymentInfo } from '../../contract/auth-capture';
import type { AuthCaptureDeployment, Network } from '../../contract/networks';
import type { AuthCaptureRequirement } from '../../contract/x402';
import { basePublicClient } from '../../platform/adapters/viem-base-transport';
import type { RpcUrls } from '../../platform/rpc-urls';
import type { AuthorizationVerifier, EscrowContract, RelayerCall, SignedPayment } from '../ports';

/**
 * base/commerce-payments' AuthCaptureEscrow (v1.0) as the operator calls it, and x402's
 * `auth-capture` verification of a buyer's signed payment: the escrow's own hashing (its
 * `getHash`), the ERC-3009 ReceiveWithAuthorization the stock client signs, and x402's signature
 * check (EOA, ERC-1271, ERC-6492) from @x402/evm.
 */
const PAYMENT_INFO =
  '(address operator, address payer, address receiver, address token, uint120 maxAmount, uint48 preApprovalExpiry, uint48 authorizationExpiry, uint48 refundExpiry, uint16 minFeeBps, uint16 maxFeeBps, address feeReceiver, uint256 salt)';
export const AUTH_CAPTURE_ESCROW_CALLS = parseAbi([
  `function authorize(${PAYMENT_INFO} paymentInfo, uint256 amount, address tokenCollector, bytes collectorData)`,
  `function capture(${PAYMENT_INFO} paymentInfo, uint256 amount, uint16 feeBps, address feeReceiver)`,
  `function void(${PAYMENT_INFO} paymentInfo)`,
  `function refund(${PAYMENT_INFO} paymentInfo, uint256 amount, address tokenCollector, bytes collectorData)`,
  `function paymentState(bytes32 paymentInfoHash) view returns (bool hasCollectedPayment, uint120 capturableAmount, uint120 refundableAmount)`,
]);

/** The operator's own account, delegating to EscrowOperatorGuard (EIP-7702): the escrow's authorize, made only when it can collect. */
export const ESCROW_OPERATOR_GUARD_CALLS = parseAbi([
  `function authorize(address escrow, ${PAYMENT_INFO} paymentInfo, uint256 amount, address tokenCollector, bytes collectorData, bytes32 nonce)`,
]);

const PAYMENT_INFO_TYPEHASH = keccak256(
  toBytes(
    'PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)',
  ),
);

const RECEIVE_WITH_AUTHORIZATION = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** The struct as viem encodes it. */
const struct = (p: PaymentInfo) => ({
  operator: getAddress(p.operator),
  payer: getAddress(p.payer),
  receiver: getAddress(p.receiver),
  token: getAddress(p.token),
  maxAmount: BigInt(p.maxAmount),
  preApprovalExpiry: p.preApprovalExpiry,
  authorizationExpiry: p.authorizationExpiry,
  refundExpiry: p.refundExpiry,
  minFeeBps: p.minFeeBps,
  maxFeeBps: p.maxFeeBps,
  feeReceiver: getAddress(p.feeReceiver),
  salt: BigInt(p.salt),
});

/** The escrow's `getHash(paymentInfo)`: keccak of (chain id, escrow, keccak of the typed struct). */
export function escrowPaymentHash(chainId: number, escrow: string, p: PaymentInfo): Hex {
  const s = struct(p);
  const inner = keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' },
        { type: 'address' },
        { type: 'address' },
        { type: 'address' },
        { type: 'address' },
        { type: 'uint120' },
        { type: 'uint48' },
        { type: 'uint48' },
        { type: 'uint48' },
        { type: 'uint16' },
        { type: 'uint16' },
        { type: 'address' },
        { type: 'uint256' },
      ],
      [
        PAYMENT_INFO_TYPEHASH,
        s.operator,
        s.payer,
        s.receiver,
        s.token,
        s.maxAmount,
        s.preApprovalExpiry,
        s.authorizationExpiry,
        s.refundExpiry,
        s.minFeeBps,
        s.maxFeeBps,
        s.feeReceiver,
        s.salt,
      ],
    ),
  );
  return keccak256(
    encodeAbiParameters([{ type: 'uint256' }, { type: 'address' }, { type: 'bytes32' }], [BigInt(chainId), getAddress(escrow), inner]),
  );
}

/** A payment's requirement as the client accepted it: after verification, the server's own with its challenge's deadlines. */
const requirementOf = (payment: SignedPayment): AuthCaptureRequirement => payment.accepted as unknown as AuthCaptureRequirement;

/**
 * The escrow's `authorize` of a verified payment: the whole amount, the buyer's signature handed to
 * the ERC-3009 collector. With `guardedOperator` (the operator's account delegates to
 * EscrowOperatorGuard), sent to that account itself, whose code checks the payer's balance and the
 * authorization's nonce before calling the escrow: a payer who moved its funds first makes it revert
 * for about 40,000 gas instead of the escrow's 117,000 (docs/SECURITY.md, I2).
 */
export function authorizeCall(payment: SignedPayment, guardedOperator?: string): RelayerCall {
  const requirement = requirementOf(payment);
  const info = paymentInfoOf(requirement, payment);
  if (!info) throw new Error('an auth-capture payment without a salt reached the relayer');
  const args = [
    struct(info),
    BigInt(requirement.amount),
    getAddress(requirement.extra.tokenCollector),
    payment.payload.signature as Hex,
  ] as const;
  if (guardedOperator)
    return {
      to: guardedOperator,
      data: encodeFunctionData({
        abi: ESCROW_OPERATOR_GUARD_CALLS,
        functionName: 'authorize',
        args: [getAddress(requirement.extra.authCaptureEscrow), ...args, payment.payload.authorization.nonce as Hex],
      }),
    };
  return {
    to: requirement.extra.authCaptureEscrow,
    data: encodeFunctionData({ abi: AUTH_CAPTURE_ESCROW_CALLS, functionName: 'authorize', args }),
  };
}

/**
 * Whether the operator's account delegates to EscrowOperatorGuard (its code is EIP-7702's
 * designator for the guard's address): then its authorize goes through the guard. One read.
 */
export async function operatorGuarded(rpcUrls: RpcUrls, network: Network, operator: string): Promise<boolean> {
  const code = await basePublicClient(rpcUrls, network).getCode({ address: getAddress(operator) });
  return (code ?? '0x').toLowerCase() === delegationCode(ESCROW_OPERATOR_GUARD);
}

/** The escrow, as its operator calls it. */
export function viemEscrowContract(
  rpcUrls: RpcUrls,
  network: Network,
  deployment: Pick<AuthCaptureDeployment, 'escrow' | 'refundCollector'>,
): EscrowContract {
  const pub = basePublicClient(rpcUrls, network);
  const { escrow, refundCollector } = deployment;
  return {
    hash: (paymentInfo) => escrowPaymentHash(network.chainId, escrow, JSON.parse(paymentInfo) as PaymentInfo),
    call(action, paymentInfo, amount) {
      const info = struct(JSON.parse(paymentInfo) as PaymentInfo);
      const data =
        action === 'capture'
          ? encodeFunctionData({ abi: AUTH_CAPTURE_ESCROW_CALLS, functionName: 'capture', args: [info, amount, 0, zeroAddress] })
          : action === 'void'
            ? encodeFunctionData({ abi: AUTH_CAPTURE_ESCROW_CALLS, functionName: 'void', args: [info] })
            : // The refund's tokens come from the operator: the OperatorRefundCollector takes them under the
              // operator's allowance (approveRefunds) and needs no data of its own.
              encodeFunctionData({
                abi: AUTH_CAPTURE_ESCROW_CALLS,
                functionName: 'refund',
                args: [info, amount, getAddress(refundCollector), '0x'],
              });
      return { to: escrow, data };
    },
    async refundFunds(paymentInfo) {
      const info = struct(JSON.parse(paymentInfo) as PaymentInfo);
      const [balance, allowance] = await Promise.all([
        pub.readContract({ address: info.token, abi: erc20Abi, functionName: 'balanceOf', args: [info.operator] }),
        pub.readContract({
          address: info.token,
          abi: erc20Abi,
          functionName: 'allowance',
          args: [info.operator, getAddress(refundCollector)],
        }),
      ]);
      return { balance, allowance };
    },
    approveRefunds(paymentInfo) {
      const info = struct(JSON.parse(paymentInfo) as PaymentInfo);
      return {
        to: info.token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [getAddress(refundCollector), maxUint256] }),
      };
    },
    async state(paymentInfo) {
      const hash = escrowPaymentHash(network.chainId, escrow, JSON.parse(paymentInfo) as PaymentInfo);
      const [collected, capturable, refundable] = await pub.readContract({
        address: getAddress(escrow),
        abi: AUTH_CAPTURE_ESCROW_CALLS,
        functionName: 'paymentState',
        args: [hash],
      });
      return { collected, capturable, refundable };
    },
  };
}

/**
 * x402 `auth-capture` verification of a signed payment against the server's requirement (its
 * terms already checked against the challenge: contract/auth-capture.ts): the authorization pays
 * the escrow's collector exactly the price, its nonce is the payment's payer-agnostic hash (so it
 * can only ever be authorized into this escrow, by this operator, for this receiver and these
 * deadlines), it may be used now and ends no later than the capture deadline, and the payer
 * signed it. The balance and the call itself are judged by the settlement (the payer's funds under
 * its hold, the node's estimate of `authorize`).
 */
export function authCaptureVerifier(rpcUrls: RpcUrls, network: Network, now: () => Date = () => new Date()): AuthorizationVerifier {
  const pub = basePublicClient(rpcUrls, network);
  const signer = (address: `0x${string}`) =>
    toFacilitatorEvmSigner({
      address,
      readContract: (args) => pub.readContract(args as never),
      verifyTypedData: (args) => pub.verifyTypedData(args as never),
      getCode: (args) => pub.getCode(args),
      waitForTransactionReceipt: (args) => pub.waitForTransactionReceipt(args as never),
      writeContract: () => Promise.reject(new Error('the escrow is called through the operator relayer')),
      sendTransaction: () => Promise.reject(new Error('the escrow is called through the operator relayer')),
    });
  const invalid = (reason: string, message: string) => ({ ok: false as const, reason, message });
  return {
    async verify(payment, requirement) {
      if (requirement.scheme !== 'auth-capture') return invalid('unsupported_scheme', 'not an auth-capture requirement');
      const a = payment.payload.authorization;
      const e = requirement.extra;
      const salt = payment.payload.salt;
      if (salt === undefined || !/^0x[0-9a-fA-F]{64}$/.test(salt))
        return invalid('invalid_auth_capture_payload', 'the payload has no 32-byte salt');
      if (a.to.toLowerCase() !== e.tokenCollector.toLowerCase())
        return invalid('invalid_auth_capture_recipient', `the authorization pays ${a.to}, not the escrow's collector ${e.tokenCollector}`);
      if (a.value !== requirement.amount)
        return invalid('invalid_auth_capture_amount', `the authorization is for ${a.value}, not the price ${requirement.amount}`);
      const nowSeconds = Math.floor(now().getTime() / 1000);
      if (BigInt(a.validAfter) > BigInt(nowSeconds))
        return invalid('invalid_auth_capture_valid_after', 'the authorization is not valid yet');
      if (BigInt(a.validBefore) <= BigInt(nowSeconds)) return invalid('invalid_auth_capture_expired', 'the authorization has expired');
      if (BigInt(a.validBefore) > BigInt(e.captureDeadline))
        return invalid('invalid_auth_capture_expiry', 'the authorization outlives the capture deadline');
      const info = paymentInfoOf(requirement, payment)!;
      const nonce = escrowPaymentHash(network.chainId, e.authCaptureEscrow, { ...info, payer: zeroAddress });
      if (a.nonce.toLowerCase() !== nonce.toLowerCase())
        return invalid('invalid_auth_capture_nonce', "the authorization's nonce is not this payment's hash");
      const signed = await verifyTypedDataSignature(signer(getAddress(e.captureAuthorizer)), {
        address: getAddress(a.from),
        domain: { name: e.name, version: e.version, chainId: network.chainId, verifyingContract: getAddress(requirement.asset) },
        types: RECEIVE_WITH_AUTHORIZATION,
        primaryType: 'ReceiveWithAuthorization',
        message: {
          from: getAddress(a.from),
          to: getAddress(a.to),
          value: BigInt(a.value),
          validAfter: BigInt(a.validAfter),
          validBefore: BigInt(a.validBefore),
          nonce: a.nonce as Hex,
        },
        signature: payment.payload.signature as Hex,
      });
      return signed ? { ok: true } : invalid('invalid_auth_capture_signature', 'the signature is not the payer’s');
    },
  };
}
