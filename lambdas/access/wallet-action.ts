/**
 * Wallet-signed actions: reading the common fields of a signed POST body and proving that the
 * wallet signed exactly this action (EIP-712, lambdas/contract/wallet-actions.ts) for this
 * service, before its deadline, once. Only the wallet's owner changes what belongs to a wallet.
 */
import * as z from 'zod/mini';
import { safeParse } from '../platform/validation';
import { ADDRESS } from '../contract/chain';
import {
  WALLET_ACTION_MAX_LIFETIME_SECONDS,
  WALLET_ACTION_NONCE,
  walletActionTypedData,
  type WalletActionMessages,
  type WalletActionType,
} from '../contract/wallet-actions';
import { internalError, invalidRequest, type AppError } from '../platform/errors';
import { PAYMENT_ERRORS } from '../payments';
import type { AccessPorts } from './ports';

/** A 65-byte ECDSA signature, or a longer smart-account (ERC-1271 / ERC-6492) signature; bounded. */
const SIGNATURE = /^0x[0-9a-fA-F]{130,8192}$/;

/** The fields every signed body carries, besides those of its action: spread into each action's object. */
export const SIGNED_FIELDS = {
  wallet: z.string().check(z.regex(ADDRESS, 'must be 0x followed by 40 hex digits')),
  nonce: z.string().check(z.regex(WALLET_ACTION_NONCE, 'must be 8 to 64 letters and digits')),
  /** Unix seconds; a JSON number or a decimal string. */
  deadline: z.pipe(
    z.union([z.int().check(z.positive()), z.string().check(z.regex(/^[1-9][0-9]{0,11}$/))]),
    z.transform((v) => BigInt(v)),
  ),
  signature: z.string().check(z.regex(SIGNATURE, 'must be a hex signature')),
};
export const SignedFieldsSchema = z.object(SIGNED_FIELDS);

export type SignedFields = z.infer<typeof SignedFieldsSchema>;

/** Parses a body with zod; the first problem becomes the spec's 400 naming the field. */
export function parseBody<T extends z.ZodMiniType>(schema: T, body: unknown, example: string): z.infer<T> {
  const parsed = safeParse(schema, body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  throw invalidRequest(field, `\`${field}\`: ${issue.message}.`, example);
}

const invalidSignature = (why: string): AppError =>
  PAYMENT_ERRORS.INVALID_WALLET_SIGNATURE({
    message: `The wallet signature does not authorise this action: ${why}.`,
    tip: 'Sign the EIP-712 action of docs/ACCESS.md with the wallet itself: audience = this service, a new nonce, a deadline within the hour.',
  });

/**
 * Proves that `fields.wallet` signed this action for this service: the deadline is in the
 * future and within the hour, the audience is this deployment, the signature is the wallet's
 * (EIP-712; smart accounts through the chain), and the nonce was never used. The nonce is
 * consumed last, so a bad signature cannot burn a wallet's nonce. Returns the message signed.
 */
export async function requireWalletAction<T extends WalletActionType>(
  type: T,
  fields: SignedFields,
  action: Omit<WalletActionMessages[T], 'wallet' | 'audience' | 'nonce' | 'deadline'>,
  ports: Pick<AccessPorts, 'signatures' | 'nonces' | 'now' | 'payments'>,
  baseUrl: string,
): Promise<WalletActionMessages[T]> {
  const nowSeconds = BigInt(Math.floor(ports.now().getTime() / 1000));
  if (fields.deadline <= nowSeconds) throw invalidSignature('its deadline has passed; sign again');
  if (fields.deadline > nowSeconds + BigInt(WALLET_ACTION_MAX_LIFETIME_SECONDS)) {
    throw invalidSignature(`its deadline is more than ${WALLET_ACTION_MAX_LIFETIME_SECONDS} s ahead`);
  }
  const message = {
    ...action,
    wallet: fields.wallet as `0x${string}`,
    audience: baseUrl,
    nonce: fields.nonce,
    deadline: fields.deadline,
  } as WalletActionMessages[T];
  const typed = walletActionTypedData(type, message, ports.payments.config.network.chainId);
  let valid: boolean;
  try {
    valid = await ports.signatures.verify({
      address: fields.wallet as `0x${string}`,
      domain: typed.domain,
      types: typed.types as Record<string, readonly { name: string; type: string }[]>,
      primaryType: type,
      message: message as unknown as Record<string, unknown>,
      signature: fields.signature as `0x${string}`,
    });
  } catch {
    throw internalError('The chain could not be asked whether this smart-account signature is valid; nothing was changed.');
  }
  if (!valid) throw invalidSignature(`it is not ${fields.wallet}'s signature over this ${type} for ${baseUrl}`);
  // Single use: a signature seen once is never accepted again, whoever replays it.
  const expires = new Date(Number(fields.deadline) * 1000);
  if (!(await ports.nonces.use(fields.wallet, `${type}:${fields.nonce}`, expires))) {
    throw invalidSignature('this nonce was already used; sign again with a new one');
  }
  return message;
}
