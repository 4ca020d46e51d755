/**
 * Decides whether a mined transaction pays for a skill. Pure: the chain adapter supplies
 * the receipt's decoded ERC-20 Transfer logs and the head; addresses are compared
 * case-insensitively; amounts come from the server's price, never from the client.
 *
 * Rules (docs/ARCHITECTURE.md): each Transfer log is judged alone (logs are not summed);
 * a log qualifies when it is emitted by a configured asset contract, goes to the treasury
 * and carries at least the price; over-payment is accepted and recorded as paid; when
 * several logs qualify the largest is recorded; a transaction unlocks one skill only.
 */
import { formatAtomic, same, type AuthorizationLog, type ReceiptView, type TransferLog } from '../../contract/chain';

export type { AuthorizationLog, ReceiptView, TransferLog } from '../../contract/chain';
export { same } from '../../contract/chain';

/**
 * The authorization a transfer to the treasury was made with, if any: an `AuthorizationUsed` log
 * of the same token whose authorizer is the transfer's payer. Such a transfer belongs to that
 * signer, whoever submitted it (EIP-3009 `transferWithAuthorization` or `receiveWithAuthorization`).
 */
export function authorizationOf(receipt: ReceiptView, asset: string, payer: string): AuthorizationLog | undefined {
  return receipt.authorizationLogs?.find((l) => same(l.address, asset) && same(l.authorizer, payer));
}

export interface AcceptedAsset {
  symbol: 'USDC' | 'USDbC';
  address: string;
}

export interface VerifyInput {
  receipt: ReceiptView;
  head: bigint;
  minConfirmations: number;
  treasury: string;
  legacyTreasury: string | undefined;
  assets: readonly AcceptedAsset[];
  price: bigint;
}

export type FailureReason =
  'reverted' | 'legacy_treasury' | 'underpaid' | 'wrong_receiver' | 'wrong_asset' | 'no_transfer' | 'too_few_confirmations';

export type Verdict =
  | { ok: true; asset: AcceptedAsset; amount: bigint; payer: string; logIndex: number; confirmations: number }
  | { ok: false; reason: FailureReason; message: string; retry: boolean; confirmations: number };

export function verifyTransfer(input: VerifyInput): Verdict {
  const { receipt, head } = input;
  const confirmations = head >= receipt.blockNumber ? Number(head - receipt.blockNumber + 1n) : 0;
  const fail = (reason: FailureReason, message: string, retry = false): Verdict => ({ ok: false, reason, message, retry, confirmations });

  if (receipt.status !== 'success') return fail('reverted', 'The transaction reverted on chain, so nothing was transferred.');

  const assetOf = (log: TransferLog) => input.assets.find((a) => same(a.address, log.address));
  const fromAssets = receipt.transferLogs.filter((l) => assetOf(l) !== undefined);
  const toTreasury = fromAssets.filter((l) => same(l.to, input.treasury));
  const qualifying = toTreasury
    .filter((l) => l.value >= input.price)
    .sort((a, b) => (b.value > a.value ? 1 : b.value < a.value ? -1 : a.logIndex - b.logIndex));

  const best = qualifying[0];
  if (!best) {
    if (fromAssets.some((l) => same(l.to, input.legacyTreasury))) {
      return fail(
        'legacy_treasury',
        `The transfer went to the banned legacy treasury ${input.legacyTreasury}; payments to it never unlock. Pay the payTo address of the current challenge.`,
      );
    }
    const largest = toTreasury.reduce<bigint>((m, l) => (l.value > m ? l.value : m), 0n);
    if (largest > 0n) {
      return fail(
        'underpaid',
        `The transfer to the treasury is ${formatAtomic(largest)} USDC; this skill costs ${formatAtomic(input.price)} (amount ${input.price}). Payments are not added together.`,
      );
    }
    if (receipt.transferLogs.some((l) => same(l.to, input.treasury))) {
      return fail('wrong_asset', 'The Transfer to the treasury was emitted by a token that is not the configured USDC or USDbC contract.');
    }
    if (fromAssets.length > 0)
      return fail(
        'wrong_receiver',
        `The USDC/USDbC transfer in this transaction went to another address, not the treasury ${input.treasury}.`,
      );
    return fail(
      'no_transfer',
      'The transaction holds no USDC or USDbC Transfer to the treasury (a transfer of the native coin alone does not count).',
    );
  }

  if (confirmations < input.minConfirmations) {
    return fail(
      'too_few_confirmations',
      `The transfer has ${confirmations} of the ${input.minConfirmations} confirmations required; it will unlock once confirmed.`,
      true,
    );
  }
  return { ok: true, asset: assetOf(best)!, amount: best.value, payer: best.from, logIndex: best.logIndex, confirmations };
}
