/**
 * The synthetic purchase: a fresh wallet, funded by the operator with exactly the canary's price,
 * buys the canary through the public base URL with x402's stock client; the pack's seal must verify
 * and the settlement must be a proof ledger row of this buyer, skill and amount. The judgments are
 * pure functions of what was read; the run goes through ports only. A failure names its step and
 * throws, so the Lambda fails (the post-deploy check reads FunctionError) and the handler counts it.
 */
import { packFiles, packSeal } from '../../contract/pack-seal';
import type { SealedPack } from '../../contract/catalog-data';
import type { Delivery, ProofRowView, SyntheticPurchasePorts } from './ports';

/** Where a run can fail: its set-up (settings, the secret, the catalog), then the four steps of the purchase. */
export type SyntheticStep = 'setup' | 'fund' | 'buy' | 'seal' | 'ledger';

export class SyntheticPurchaseFailure extends Error {
  constructor(
    readonly step: SyntheticStep,
    message: string,
  ) {
    super(`synthetic purchase failed at ${step}: ${message}`);
    this.name = 'SyntheticPurchaseFailure';
  }
}

export interface SyntheticPurchaseReport {
  ok: true;
  skill: string;
  buyer: string;
  txHash: string;
  fundTxHash: string;
  ms: number;
}

const isFiles = (v: unknown): v is SealedPack =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((t) => typeof t === 'string');

/** Why the delivered pack's seal does not verify (recomputed over its files, against the answer's seal and the published one), or undefined. */
export function sealProblem(delivery: Pick<Delivery, 'files' | 'seal'>, published: string): string | undefined {
  if (!isFiles(delivery.files) || Object.keys(delivery.files).length === 0) return 'the answer holds no sealed_pack.files';
  const recomputed = packSeal(packFiles(delivery.files));
  if (recomputed !== delivery.seal) return `the files hash to ${recomputed}, the answer's seal is ${String(delivery.seal)}`;
  if (recomputed !== published) return `the files hash to ${recomputed}, /api/packs publishes ${published}`;
  return undefined;
}

/** Why the proof ledger rows hold no row for this purchase (tx, skill, payer and amount), or undefined. */
export function ledgerProblem(
  rows: readonly ProofRowView[],
  expected: { txHash: string; skill: string; buyer: string; amount: bigint },
): string | undefined {
  const row = rows.find((r) => r.txHash.toLowerCase() === expected.txHash.toLowerCase());
  if (!row) return `no row for ${expected.txHash} among the ${rows.length} newest of ${expected.skill}`;
  const wrong = [
    row.skill !== expected.skill ? `skill ${row.skill}` : undefined,
    row.payer.toLowerCase() !== expected.buyer.toLowerCase() ? `payer ${row.payer}` : undefined,
    row.amount !== expected.amount.toString() ? `amount ${row.amount}` : undefined,
  ].filter((w) => w !== undefined);
  return wrong.length > 0
    ? `the row for ${expected.txHash} says ${wrong.join(', ')} (expected ${expected.skill}, ${expected.buyer}, ${expected.amount})`
    : undefined;
}

/** Runs `work` as `step`: any error it throws becomes that step's failure. */
async function at<T>(step: SyntheticStep, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof SyntheticPurchaseFailure) throw e;
    throw new SyntheticPurchaseFailure(step, (e as Error).message);
  }
}

export async function runSyntheticPurchase(ports: SyntheticPurchasePorts): Promise<SyntheticPurchaseReport> {
  const started = ports.now();
  const { canary, published } = await at('setup', async () => {
    const canary = await ports.storefront.canary();
    return { canary, published: await ports.storefront.publishedSeal(canary.skill) };
  });
  // One wallet can buy a skill once (the service settles nothing for an owner): a new wallet each run.
  const buyer = ports.freshBuyer();
  const fundTxHash = await at('fund', () => ports.funder.fund(buyer.address, canary.amount));
  const delivery = await at('buy', () => buyer.buy(canary.pay));
  if (delivery.status !== 200 || !delivery.txHash)
    throw new SyntheticPurchaseFailure('buy', `GET ${canary.pay} answered ${delivery.status}: ${delivery.summary}`);
  const txHash = delivery.txHash;

  const badSeal = sealProblem(delivery, published);
  if (badSeal) throw new SyntheticPurchaseFailure('seal', badSeal);

  const expected = { txHash, skill: canary.skill, buyer: buyer.address, amount: canary.amount };
  let badRow: string | undefined = 'not read';
  for (let attempt = 1; attempt <= ports.ledgerPatience.attempts; attempt++) {
    if (attempt > 1) await ports.sleep(ports.ledgerPatience.delayMs);
    badRow = ledgerProblem(await at('ledger', () => ports.storefront.proofRows(canary.skill)), expected);
    if (!badRow) break;
  }
  if (badRow) throw new SyntheticPurchaseFailure('ledger', badRow);
  return { ok: true, skill: canary.skill, buyer: buyer.address, txHash, fundTxHash, ms: ports.now() - started };
}
