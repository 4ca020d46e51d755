/**
 * The public face of the ledger domain: the proof ledger (one row per claimed transfer), card
 * sales, the figures folded from both, and the proof document. Payments claims through it; access,
 * discovery and insights read it. Nothing else of the ledger is imported from outside it (the
 * linter holds this).
 */
import type { CardSales, Figures, Ledger, ServiceSigner } from './ports';
import type { RefundOutcome } from './refunds';

export type {
  CardSale,
  CardSales,
  ClaimResult,
  Figures,
  Ledger,
  LedgerKind,
  LedgerPage,
  LedgerRow,
  PaymentRef,
  ProofPorts,
  ServiceSigner,
  StoredRefund,
} from './ports';
export { refundedInFull, unrefunded } from './core/usdc-refunds';
export type { RefundOutcome } from './refunds';
export {
  refundedLines,
  reorgedLines,
  revenueLines,
  TALLY_DECIMALS,
  unlockFigures,
  walletFigures,
  type RevenueLine,
  type UnlockFigures,
  type WalletFigures,
} from './figures';
export type { Channel, Counters, TallyAsset } from './core/counters';
export type { CardChange, CardSaleStatus, ChargeFee, DisputeFees } from './core/card-standing';
export { getProof, PROOF_LIMIT, proofDocument, publicRow } from './proof';
export { noReceipt, receiptClaims, signReceipt } from './receipts';
export { jwks, jwkThumbprint, serviceJws } from './service-key';

/**
 * This deployment's ledger, card sales and figures, built from the environment by the ledger's own
 * wiring: what another function's composition builds its ports from. The wiring and its adapters
 * (the AWS SDK, viem) load with the first call, in a chunk of their own.
 */
export const ledgerFromEnv = async (): Promise<Ledger> => (await import('./wiring')).ledgerFromEnv();
export const cardSalesFromEnv = async (): Promise<CardSales> => (await import('./wiring')).cardSalesFromEnv();
export const figuresFromEnv = async (): Promise<Figures> => (await import('./wiring')).figuresFromEnv();
/** The service's signing key (receipts, the agent card): KMS in AWS, the key file locally. */
export const serviceSignerFromEnv = async (env?: NodeJS.ProcessEnv): Promise<ServiceSigner> =>
  (await import('./wiring')).serviceSignerFromEnv(env);

/**
 * Records an operator's refund transaction against a sale (refunds.ts: checked on chain, written
 * once), with this deployment's tables and chain: what `npm run refund` records, and the escrow's
 * refund of an escrowed sale once it is mined (payments). Loaded with the first call.
 */
export async function recordRefundFromEnv(saleTx: string, refundTx: string, env?: NodeJS.ProcessEnv): Promise<RefundOutcome> {
  const [{ refundPortsFromEnv }, { recordRefund }] = await Promise.all([import('./wiring'), import('./refunds')]);
  return recordRefund(refundPortsFromEnv(env), saleTx, refundTx);
}
