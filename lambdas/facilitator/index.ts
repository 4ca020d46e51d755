/**
 * The public face of the facilitator: x402's facilitator role (coinbase/x402 splits client,
 * resource server and facilitator the same way). It verifies a signed authorization, settles it
 * from the relayer's key pool under the money invariants of docs/SECURITY.md, and ends it; it
 * knows resources, not skills, and nothing of the ledger or delivery, which are the resource
 * server's (payments). It imports the contract and the platform only (the linter holds this).
 */
import type { Context } from 'aws-lambda';
import type { MarketConfig } from '../contract/settings';
import type { RpcUrls } from '../platform/rpc-urls';
import type { consumeUnsettled as ConsumeUnsettled, endSettlement as EndSettlement, settle as Settle } from './settle';
import type { EscrowOperator, X402Settlement } from './ports';
import type { escrowCall as EscrowCall, escrowRefund as EscrowRefund } from './escrow';
import type { WatchReport, WatchTask } from './watch';

export type * from './ports';
export type { BeforeSend, EscrowSettled, FacilitatorPorts, Refusal, Settled, SettleRequest, Waiting } from './settle';
export type { WatchReport, WatchTask } from './watch';
/** The settlement's key (an authorization's token, payer and nonce): what the owner check reads before settling. */
export { settlementKey } from './core/settlement-key';
/** An authorization's life as the challenge allows it (I7). */
export { consumedExpiry, validBeforeTooFar } from './core/authorization-life';
/** A settlement's bookkeeping beside the resource server's claim: the first failure of either, once both ended. */
export { alongside } from './settlement-end';

/** Settles a signed payment for a resource (settle.ts: `next` driven by one loop), loaded on its first call with the settlement path. */
export const settle = async (...args: Parameters<typeof Settle>): ReturnType<typeof Settle> => (await import('./settle')).settle(...args);
/** The confirmation loop's end of a relayed settlement, through the same `next`. */
export const endSettlement = async (...args: Parameters<typeof EndSettlement>): ReturnType<typeof EndSettlement> =>
  (await import('./settle')).endSettlement(...args);
/** An owner's signed payment, answered free, recorded as never to be settled (I4). */
export const consumeUnsettled = async (...args: Parameters<typeof ConsumeUnsettled>): ReturnType<typeof ConsumeUnsettled> =>
  (await import('./settle')).consumeUnsettled(...args);

/**
 * The facilitator's ports from the environment (undefined without a relayer key), built by its own
 * wiring, which loads with the first call in a chunk of its own (viem, the AWS SDK).
 */
export const facilitatorFromEnv = async (
  env: NodeJS.ProcessEnv,
  rpcUrls: RpcUrls,
  config: MarketConfig,
): Promise<X402Settlement | undefined> => (await import('./wiring')).facilitatorFromEnv(env, rpcUrls, config);

/** The operator's capture, void or refund of an escrowed (`auth-capture`) payment (escrow.ts), loaded on its first call. */
export const escrowCall = async (...args: Parameters<typeof EscrowCall>): ReturnType<typeof EscrowCall> =>
  (await import('./escrow')).escrowCall(...args);
/** The operator's refund of a captured escrowed payment, from the operator's own balance through the refund collector (escrow.ts). */
export const escrowRefund = async (...args: Parameters<typeof EscrowRefund>): ReturnType<typeof EscrowRefund> =>
  (await import('./escrow')).escrowRefund(...args);
export type { EscrowOutcome, EscrowRefundOutcome } from './escrow';
export { heldInEscrow } from './core/escrow';

/**
 * The escrow operator's address while auth-capture is offered (the offers' `captureAuthorizer`),
 * for a function that lists offers; the wiring loaded on first call.
 */
export const escrowOfferFromEnv = (env: NodeJS.ProcessEnv, config: MarketConfig): (() => Promise<string | undefined>) => {
  let offer: Promise<() => Promise<string | undefined>> | undefined;
  return async () => (await (offer ??= import('./wiring').then((w) => w.escrowOfferFromEnv(env, config))))();
};

/**
 * The escrow operator's ports alone (undefined without an operator key or an escrow), for the
 * operator's refund outside a request; built by the facilitator's wiring on first call.
 */
export const escrowOperatorPortsFromEnv = async (
  env: NodeJS.ProcessEnv,
  rpcUrls: RpcUrls,
  config: MarketConfig,
): Promise<EscrowOperator | undefined> => (await import('./wiring')).escrowOperatorPortsFromEnv(env, rpcUrls, config);

/** The scheduled watch of the relayer's gas and of settlements stuck in flight (watch.ts), loaded on its first run. */
export const watchTask = async (event?: WatchTask | null, context?: Context): Promise<WatchReport> =>
  (await import('./watch')).watch(event, context, async () => {
    // The adapters load from their own chunk, as the routes' ports do.
    const wiring = await import('./wiring');
    return { relayerWatch: () => wiring.relayerWatchFromEnv(), inFlight: () => wiring.inFlightSettlementsFromEnv() };
  });
