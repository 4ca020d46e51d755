/**
 * An owner need not pay again. A stock x402 v2 client answers every 402 by signing an EIP-3009
 * authorization for the challenge, and that signature proves its wallet as well as a sign-in
 * would: the access domain asks `decideAccess` about that wallet before anything is settled, and
 * an owner gets the pack with no settlement submitted (docs/ACCESS.md).
 *
 * Only a signature made out for this very resource counts (to the treasury, or for an escrowed
 * payment to the escrow's token collector under this resource's escrow terms; the exact price, the
 * challenge's token, inside its validity window and no further ahead than the challenge allows,
 * and not one already settled, which is a purchase and is answered as one), and it is used once:
 * when the pack is given, the authorization is recorded as consumed in the settlements table, under
 * the very key and condition a settlement claims it by (issue 50, I4). The signature names no
 * resource, so a copy of the header (it travels in the clear to whoever sees the request) could
 * otherwise be settled for another skill of the same price, by either protocol version, and
 * charge the owner: the record ends it for every resource, and expires when the authorization does.
 */
import { same } from './core/verify-transfer';
import { consumedExpiry, consumeUnsettled, settlementKey, validBeforeTooFar } from '../facilitator';
import { requireSkill } from '../catalog';
import { challengeFor, requirementFor } from './challenge-answer';
import type { PaymentsPorts, SettlementRead, SignedPayment } from './ports';

/** The wallet a PAYMENT-SIGNATURE proves, and the one use of its authorization. */
export interface AuthorizationSigner {
  /** Lower-case address. */
  address: string;
  /** Records the authorization as used; false when it already was (a copy of the header). */
  spend(): Promise<boolean>;
}

/** A PAYMENT-SIGNATURE made out for this skill's challenge, before anything is read of it. */
export interface SignedPaymentCheck {
  /**
   * The wallet the authorization names (`from`, lower case). Not proven yet: what it owns may be
   * read alongside `prove`, and is used only if `prove` finds the signature its.
   */
  from: string;
  /**
   * The authorization's settlement record and its signature, checked at once: the signer, or
   * undefined when the signature is not `from`'s or the authorization was already settled here
   * (a purchase, answered to its buyer as one). `read` is what the settlement read found, so the
   * settlement path of the same request need not read it again.
   */
  prove(): Promise<{ signer: AuthorizationSigner | undefined; read: SettlementRead | undefined }>;
}

/**
 * The check of a signed payment (already decoded and shape-checked) as an owner's proof, or
 * undefined when it proves no wallet here (made out for something else, or outside its window):
 * the settlement path then judges and answers it as always. Nothing is read until `prove`.
 */
export function signedPaymentCheck(
  payment: SignedPayment,
  skill: string | undefined,
  ports: PaymentsPorts,
  baseUrl: string,
): SignedPaymentCheck | undefined {
  const challenge = challengeFor(skill, ports, baseUrl);
  const entry = requireSkill(ports.catalog, skill);
  // An escrowed payment (auth-capture) proves its wallet too: made out for this resource's escrow
  // terms (a challenge of this service's, recent enough), to the escrow's token collector.
  const chosen = requirementFor(payment, challenge.v2.accepts, ports);
  if (!chosen.ok) return undefined;
  const { requirement } = chosen;
  const payee = requirement.scheme === 'auth-capture' ? requirement.extra.tokenCollector : requirement.payTo;
  // Named for this very resource (a stock client always names it): one made out for another skill of the same price proves nothing here.
  if (payment.resource?.url !== challenge.v2.resource.url) return undefined;
  const a = payment.payload.authorization;
  const now = BigInt(Math.floor(ports.now().getTime() / 1000));
  if (!same(a.to, payee) || a.value !== requirement.amount) return undefined;
  if (BigInt(a.validAfter) > now || now >= BigInt(a.validBefore)) return undefined;
  // A life the challenge does not allow is the settlement path's refusal (a 402 naming it), never a row.
  if (validBeforeTooFar(a.validBefore, Number(now), requirement.maxTimeoutSeconds)) return undefined;
  const address = a.from.toLowerCase();
  const pk = settlementKey(payment, requirement);
  const expiresAt = consumedExpiry(a.validBefore);
  const signer: AuthorizationSigner = {
    address,
    async spend() {
      const x402 = ports.x402;
      // No relayer here: nothing can settle it, so the nonce's single use is all there is to record.
      if (!x402)
        return ports.nonces.use(address, `eip3009:${requirement.asset.toLowerCase()}:${a.nonce.toLowerCase()}`, new Date(expiresAt * 1000));
      return (await consumeUnsettled(payment, requirement, entry.id, { x402, now: ports.now })).consumed;
    },
  };
  return {
    from: address,
    async prove() {
      const x402 = ports.x402;
      // Independent, so at once: the record (one GetItem) and the signature (recovered locally for an EOA).
      const [record, signed] = await Promise.all([
        x402 ? x402.settlements.get(pk) : undefined,
        ports.signatures.authorizationSigned(payment, requirement).catch((e: unknown) => e as Error),
      ]);
      const read = x402 ? { pk, record } : undefined;
      // An authorization this service already settled is a purchase, answered (to its buyer) as one,
      // whatever the signature check said (a contract wallet's asks the chain, which may have failed).
      if (record) return { signer: undefined, read };
      if (signed instanceof Error) throw signed;
      return { signer: signed ? signer : undefined, read };
    },
  };
}
