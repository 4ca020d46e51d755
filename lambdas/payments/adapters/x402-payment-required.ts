import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import type { PaymentRequiredHeader } from '../ports';

/**
 * x402's own encoder for the `PAYMENT-REQUIRED` header (base64 of the JSON), so the header is
 * what stock x402 clients and @x402/extensions' sign-in client decode. Our `PaymentRequiredV2`
 * is x402's `PaymentRequired` with the network as a plain CAIP-2 string.
 */
export const x402PaymentRequiredHeader: PaymentRequiredHeader = (required) => encodePaymentRequiredHeader(required as PaymentRequired);
