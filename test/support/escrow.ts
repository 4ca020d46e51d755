/**
 * An escrowed sale (x402 `auth-capture`) as the chain shows it: the escrow's `authorize` (the
 * transaction the service answers in PAYMENT-RESPONSE), the payment's hash its PaymentAuthorized
 * event names, and the capture: the operator's transaction to the escrow whose PaymentCaptured
 * event names the same payment, mined after the authorize. Read from the chain alone, so a test
 * can hold the service's receipt and books to it.
 */
import { parseEventLogs, type Hex, type TransactionReceipt } from 'viem';
import { expect } from 'vitest';
import { testAccount } from '../../local/anvil';
import { AUTH_CAPTURE_ESCROW_ABI, ESCROW_OPERATOR_INDEX, LOCAL_AUTH_CAPTURE_ESCROW } from '../../local/escrow';
import type { chainTools } from './chain';

export const ESCROW_OPERATOR = testAccount(ESCROW_OPERATOR_INDEX).address;

export interface EscrowedOnChain {
  paymentHash: Hex;
  authorize: TransactionReceipt;
  capture: TransactionReceipt;
}

/** The authorize's receipt, its payment's hash, and the one capture of that payment (asserted: the operator's, to the escrow, after the authorize). */
export async function escrowedOnChain(pub: ReturnType<typeof chainTools>['pub'], authorizeTx: Hex): Promise<EscrowedOnChain> {
  const authorize = await pub.getTransactionReceipt({ hash: authorizeTx });
  const [authorized] = parseEventLogs({ abi: AUTH_CAPTURE_ESCROW_ABI, logs: authorize.logs, eventName: 'PaymentAuthorized' });
  expect(authorized, 'the authorize emits PaymentAuthorized').toBeDefined();
  const paymentHash = (authorized!.args as { paymentInfoHash: Hex }).paymentInfoHash;
  const logs = await pub.getLogs({ address: LOCAL_AUTH_CAPTURE_ESCROW, fromBlock: authorize.blockNumber, toBlock: 'latest' });
  const captured = parseEventLogs({ abi: AUTH_CAPTURE_ESCROW_ABI, logs, eventName: 'PaymentCaptured' }).filter(
    (l) => (l.args as { paymentInfoHash: Hex }).paymentInfoHash === paymentHash,
  );
  expect(captured, 'one capture of the payment').toHaveLength(1);
  const capture = await pub.getTransactionReceipt({ hash: captured[0]!.transactionHash });
  expect(capture.status).toBe('success');
  expect(capture.from.toLowerCase()).toBe(ESCROW_OPERATOR.toLowerCase());
  expect(capture.to?.toLowerCase()).toBe(LOCAL_AUTH_CAPTURE_ESCROW.toLowerCase());
  const after =
    capture.blockNumber > authorize.blockNumber ||
    (capture.blockNumber === authorize.blockNumber && capture.transactionIndex > authorize.transactionIndex);
  expect(after, 'the capture is mined after the authorize').toBe(true);
  return { paymentHash, authorize, capture };
}
