/**
 * The entry of `npm run guard-operator` (local/guard-operator.ts): the escrow operator's account,
 * from its KMS key (ESCROW_OPERATOR_KMS_KEY_ID) or the local key, which the tool makes delegate to
 * EscrowOperatorGuard. Not a deployed function: the operator runs it once per operator key with
 * their own credentials (docs/OPERATIONS.md, "The escrow operator key"), so no function of the
 * stack can change the operator's account.
 */
export async function handler() {
  // The adapters load from their own chunk, as the scheduled tasks' ports do.
  const { escrowOperatorAccountFromEnv } = await import('./wiring');
  return escrowOperatorAccountFromEnv(process.env);
}
