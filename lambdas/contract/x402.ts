/**
 * x402 v2's data as it travels between a client, this resource server and its facilitator
 * (x402's `PaymentRequirements`, `PaymentRequired`, and `PaymentPayload` of the `exact` scheme on
 * EVM): the shapes both sides of the service read, so neither defines them for the other.
 */

/** One payment option of an x402 v2 `PaymentRequired` (x402's `PaymentRequirements`): `exact`, or `auth-capture` (escrow). */
export type PaymentRequirementsV2 = ExactRequirement | AuthCaptureRequirement;

/** x402's `exact` scheme: an EIP-3009 TransferWithAuthorization straight to `payTo`. */
export interface ExactRequirement {
  scheme: 'exact';
  /** CAIP-2. */
  network: string;
  /** Atomic units, as a decimal string. */
  amount: string;
  /** The token contract. */
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  /** The token's EIP-712 domain, which the client needs to sign `TransferWithAuthorization`. */
  extra: { name: string; version: string };
}

/**
 * x402's `auth-capture` scheme (specification v1.1) with `paymentFlow: escrow`: the buyer signs an
 * ERC-3009 ReceiveWithAuthorization to the escrow's token collector whose nonce is the payment's
 * payer-agnostic hash; the operator (`captureAuthorizer`) authorizes it into base/commerce-payments'
 * AuthCaptureEscrow, and captures it to `payTo` only once the resource is delivered (contract/auth-capture.ts).
 */
export interface AuthCaptureRequirement {
  scheme: 'auth-capture';
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: AuthCaptureExtra;
}

/** The `extra` of an `auth-capture` requirement: the spec's required fields (deadlines absolute, Unix seconds), fees zero. */
export type AuthCaptureExtra = {
  /** The token's EIP-712 domain, which the ReceiveWithAuthorization is signed against. */
  name: string;
  version: string;
  /** The escrow the payment is held in (x402's name for it). */
  authCaptureEscrow: string;
  /** Its ERC-3009 token collector: the authorization's `to`. */
  tokenCollector: string;
  /** The operator, the only account that can authorize, capture, void or refund the payment. */
  captureAuthorizer: string;
  /** Until when the payment can be captured; after it the payer reclaims it from the escrow alone. */
  captureDeadline: number;
  /** Until when a captured payment can be refunded through the escrow. */
  refundDeadline: number;
  feeRecipient: string;
  minFeeBps: 0;
  maxFeeBps: 0;
  paymentFlow: 'escrow';
  assetTransferMethod: 'eip3009';
};

/** x402 v2's `PaymentRequired`: what the `PAYMENT-REQUIRED` header carries, base64. */
export interface PaymentRequiredV2 {
  x402Version: 2;
  error?: string;
  resource: { url: string; description: string; mimeType: string };
  accepts: PaymentRequirementsV2[];
  extensions?: Record<string, unknown>;
}

/** An EIP-3009 `TransferWithAuthorization` as x402 v2's `exact` scheme carries it (values as decimal strings). */
export interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  /** 32 bytes, hex. */
  nonce: string;
}

/** What a `PAYMENT-SIGNATURE` header carries, parsed (x402 v2 `PaymentPayload` with an EIP-3009 payload). */
export interface SignedPayment {
  x402Version: 2;
  resource?: { url: string; description?: string | undefined; mimeType?: string | undefined } | undefined;
  /** The payment option the client chose; checked against the server's own, never trusted. */
  accepted: {
    scheme: string;
    network: string;
    asset: string;
    amount: string;
    payTo: string;
    maxTimeoutSeconds: number;
    extra: Record<string, unknown>;
  };
  /** `salt`: the `auth-capture` payment's PaymentInfo salt (32 bytes, hex), chosen by the client; absent for `exact`. */
  payload: { signature: string; authorization: Authorization; salt?: string | undefined };
  /** The client's extensions, as sent (x402's payment-identifier among them); read only through their own validators. */
  extensions?: Record<string, unknown> | undefined;
}
