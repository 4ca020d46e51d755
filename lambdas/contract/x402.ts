/**
 * x402 v2's data as it travels between a client, this resource server and its facilitator
 * (x402's `PaymentRequirements`, `PaymentRequired`, and `PaymentPayload` of the `exact` scheme on
 * EVM): the shapes both sides of the service read, so neither defines them for the other.
 */

/** One payment option of an x402 v2 `PaymentRequired` (x402's `PaymentRequirements`). */
export interface PaymentRequirementsV2 {
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
  payload: { signature: string; authorization: Authorization };
  /** The client's extensions, as sent (x402's payment-identifier among them); read only through their own validators. */
  extensions?: Record<string, unknown> | undefined;
}
