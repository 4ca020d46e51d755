/**
 * The business metrics the functions publish (CloudWatch embedded metric format, through
 * Powertools Metrics) and the stack alarms and charts on: one list, so a renamed metric cannot
 * leave an alarm watching nothing.
 */
export const METRIC_NAMESPACE = 'SkillMarket';

export const METRICS = {
  /** A first claim of a transfer that unlocked a skill (replays do not count). */
  unlocks: 'Unlocks',
  /** A transfer that did not verify, dimension `Reason` (e.g. underpaid, wrong_receiver, not_found). */
  verificationFailures: 'VerificationFailures',
  /** Milliseconds one RPC provider took to answer a transfer read, dimension `Provider` (the host). */
  rpcLatency: 'RpcLatency',
  /** An RPC provider that failed or timed out on a transfer read, dimension `Provider`. */
  rpcProviderFailures: 'RpcProviderFailures',
  /** A request refused with 429, dimension `Scope`. */
  rateLimited: 'RateLimited',
  /** A card checkout whose sale was recorded (the first delivery of Stripe's paid event). */
  checkoutCompletions: 'CheckoutCompletions',
  /** Tally counters the daily reconcile found different from a recount; must stay 0. */
  reconcileDifferences: 'ReconcileDifferences',
  /** Treasury transfers the daily unmatched-receipts run found with no claim: money received, nothing delivered. */
  unmatchedTransfers: 'UnmatchedTransfers',
  /** A signed authorization refused before anything was sent, dimension `Reason` (payer_settlement_in_flight, payer_cooling_down, payer_funds_pending …). */
  settlementsRefused: 'SettlementsRefused',
  /** A transfer the x402 relayer submitted that reverted: the relayer paid gas and nothing moved. */
  relayerReverts: 'RelayerReverts',
  /** The gas those reverted transfers cost the relayer, in gwei (ETH on Base). */
  relayerRevertGasGwei: 'RelayerRevertGasGwei',
  /** The relayer's ETH balance in gwei, read every few minutes by payments' scheduled task: the gas it has left. */
  relayerBalanceGwei: 'RelayerBalanceGwei',
  /** A KMS signature that failed (throttled, key disabled, access denied), dimension `Key` (relayer, service): nothing it would have signed went out. */
  signerFailures: 'SignerFailures',
  /** x402 settlements claimed more than a few minutes ago and still not finished (payments' scheduled task): a buyer's payment stuck in flight. */
  stuckSettlements: 'StuckSettlements',
  /**
   * A synthetic purchase of the canary that failed (1, dimension `Step`: setup, fund, buy, seal, ledger)
   * or passed (0, no dimension), published by every run of payments' synthetic purchase.
   */
  syntheticPurchaseFailures: 'SyntheticPurchaseFailures',
} as const;

export type MetricName = (typeof METRICS)[keyof typeof METRICS];
