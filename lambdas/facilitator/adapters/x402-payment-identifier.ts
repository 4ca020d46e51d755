import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  isValidPaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import type { PaymentPayload } from '@x402/core/types';
import type { PaymentIdentifiers } from '../ports';

/**
 * x402's payment-identifier extension, as its resource-server side declares and reads it: the
 * challenge offers it (not required), and a payment's `extensions['payment-identifier'].info.id`
 * is taken only when the extension's own id rule (`isValidPaymentId`: 16–128 characters of
 * letters, digits, `-` and `_`) accepts it.
 *
 * Not `validatePaymentIdentifier` / `extractAndValidatePaymentIdentifier`: they compile the JSON
 * Schema the payment carries with a new Ajv on every call. Stock clients echo the challenge's
 * declaration, schema included, so every purchase paid that compile (the side-by-side bench's CPU
 * per purchase rose by a third), and the schema is the client's: a `pattern` of its choosing would
 * run on our CPU. The id rule is the whole of what the server needs.
 */
export const x402PaymentIdentifiers: PaymentIdentifiers = {
  declaration: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) },
  idOf(payment) {
    // A client that echoes the challenge's declaration without an id sends none.
    const id = extractPaymentIdentifier(payment as unknown as PaymentPayload, false);
    if (id === null) return undefined;
    return isValidPaymentId(id) ? id : 'invalid';
  },
};
