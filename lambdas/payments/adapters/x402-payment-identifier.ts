import {
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import type { PaymentPayload } from '@x402/core/types';
import type { PaymentIdentifiers } from '../ports';

/**
 * x402's payment-identifier extension, as its resource-server side declares and reads it: the
 * challenge offers it (not required), and a payment's `extensions['payment-identifier'].info.id`
 * is taken only when the extension's own validation accepts it (16–128 characters of letters,
 * digits, `-` and `_`).
 */
export const x402PaymentIdentifiers: PaymentIdentifiers = {
  declaration: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) },
  idOf(payment) {
    if (payment.extensions?.[PAYMENT_IDENTIFIER] === undefined) return undefined;
    // A client that echoes the challenge's declaration without an id sends none.
    const { id, validation } = extractAndValidatePaymentIdentifier(payment as unknown as PaymentPayload);
    if (!validation.valid) return 'invalid';
    return id ?? undefined;
  },
};
