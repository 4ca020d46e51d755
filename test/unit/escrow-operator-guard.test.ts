/**
 * The escrow operator's guard (issue 53, I2): the address the service names is where the CREATE2
 * deployer puts the committed bytecode, and the guarded authorize the facilitator sends to the
 * operator's own account carries exactly the escrow's authorize (the same PaymentInfo, amount,
 * collector and signature) plus the escrow and the authorization's nonce the guard checks. The
 * guard on chain is exercised by test/integration/escrow-abuse.test.ts.
 */
import { decodeFunctionData, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { authCaptureRequirement, delegationCode, escrowDeadlines, ESCROW_OPERATOR_GUARD } from '../../lambdas/contract/auth-capture';
import { AUTH_CAPTURE_DEPLOYMENTS } from '../../lambdas/contract/networks';
import {
  AUTH_CAPTURE_ESCROW_CALLS,
  authorizeCall,
  ESCROW_OPERATOR_GUARD_CALLS,
} from '../../lambdas/facilitator/adapters/viem-auth-capture';
import type { SignedPayment } from '../../lambdas/facilitator/ports';
import { ESCROW_OPERATOR_GUARD_ABI, LOCAL_ESCROW_OPERATOR_GUARD } from '../../local/escrow';

const NOW = 1_800_000_030;
const deployment = AUTH_CAPTURE_DEPLOYMENTS[0];
const OPERATOR = '0x00000000000000000000000000000000000000aA';
const requirement = authCaptureRequirement(
  {
    network: 'eip155:8453',
    amount: '490000',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    payTo: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
    maxTimeoutSeconds: 60,
    eip712: { name: 'USD Coin', version: '2' },
  },
  deployment,
  OPERATOR,
  escrowDeadlines({ nowSeconds: NOW, maxTimeoutSeconds: 60, captureSeconds: 3600, refundDays: 30 }),
);
const payment = {
  x402Version: 2,
  accepted: requirement,
  payload: {
    signature: `0x${'12'.repeat(65)}`,
    salt: `0x${'ab'.repeat(32)}`,
    authorization: {
      from: '0x1111111111111111111111111111111111111111',
      to: deployment.tokenCollector,
      value: '490000',
      validAfter: '0',
      validBefore: String(NOW + 60),
      nonce: `0x${'cd'.repeat(32)}`,
    },
  },
} as unknown as SignedPayment;

describe('the escrow operator guard', () => {
  it('sits where the CREATE2 deployer puts its committed bytecode, the address the service checks delegations against', () => {
    expect(LOCAL_ESCROW_OPERATOR_GUARD).toBe(getAddress(ESCROW_OPERATOR_GUARD));
    expect(delegationCode(ESCROW_OPERATOR_GUARD)).toBe(`0xef0100${ESCROW_OPERATOR_GUARD.slice(2).toLowerCase()}`);
  });

  it("the guarded authorize goes to the operator's own account and carries the escrow's authorize, the escrow and the nonce", () => {
    const direct = authorizeCall(payment);
    expect(direct.to).toBe(deployment.escrow);
    const escrowArgs = decodeFunctionData({ abi: AUTH_CAPTURE_ESCROW_CALLS, data: direct.data as Hex });
    expect(escrowArgs.functionName).toBe('authorize');

    const guarded = authorizeCall(payment, OPERATOR);
    expect(guarded.to).toBe(OPERATOR);
    // Encoded as the compiled guard reads it.
    const call = decodeFunctionData({ abi: ESCROW_OPERATOR_GUARD_ABI, data: guarded.data as Hex });
    expect(call.functionName).toBe('authorize');
    const [escrow, ...rest] = decodeFunctionData({ abi: ESCROW_OPERATOR_GUARD_CALLS, data: guarded.data as Hex }).args;
    expect(escrow).toBe(getAddress(deployment.escrow));
    expect(rest.slice(0, 4)).toEqual(escrowArgs.args);
    expect(rest[4]).toBe(payment.payload.authorization.nonce);
  });
});
