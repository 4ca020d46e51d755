import { TX_HASH } from '../../contract/chain';
import type { ConfirmationJob } from '../ports';
import { productFor } from './product';
import { dropped, settle, type SettlePorts } from './settle';

/** `unlocked`, `pending` and `failed` end a confirmation attempt; `final`, `reorged` and `pending` a finality check. */
export type TaskStatus = 'unlocked' | 'pending' | 'failed' | 'final' | 'reorged';

/**
 * One attempt of the loop (a Step Functions task in AWS, an in-process timer locally). A
 * `confirm` job settles without scheduling another loop, for the caller that asked; a
 * `finality` job re-verifies a claim once it is past the reorg window.
 */
export async function confirmationAttempt(job: ConfirmationJob, ports: SettlePorts): Promise<{ status: TaskStatus; message: string }> {
  const product = productFor(ports.catalog, job.product, job.skill);
  if (!product || job.network !== ports.config.network.name || !TX_HASH.test(job.txHash))
    return { status: 'failed', message: 'invalid job' };
  if (job.kind === 'finality') return finalityAttempt(job, ports);
  const claimant = { source: job.source, payer: job.payer };
  const outcome = await settle({ txHash: job.txHash as `0x${string}`, product }, ports, {
    schedule: false,
    claimant,
    relayed: job.relayed === true,
  });
  switch (outcome.kind) {
    case 'unlocked':
      return { status: 'unlocked', message: `recorded for ${outcome.row.skill}` };
    case 'pending':
    case 'unavailable':
      return { status: 'pending', message: outcome.message };
    case 'not_yours':
      return { status: 'failed', message: 'the transfer was claimed by another caller' };
    default:
      return { status: 'failed', message: outcome.message };
  }
}

/**
 * Finality is checked, not hoped for: a claim past the reorg window is read from the chain once
 * more. Still there: marked final. Gone by agreement of the providers (see `dropped`): marked
 * reorged, so it leaves the proof ledger, the figures and every license. Anything else (a lagging
 * or failing provider) decides nothing and is tried again.
 */
async function finalityAttempt(job: ConfirmationJob, ports: SettlePorts): Promise<{ status: TaskStatus; message: string }> {
  const network = ports.config.network.name;
  const row = await ports.ledger.get(network, job.txHash.toLowerCase());
  if (!row || row.status !== 'confirmed') return { status: 'failed', message: 'no confirmed claim to check' };
  if (row.final) return { status: 'final', message: 'already final' };
  const read = await ports.chain.readTransfer(row.txHash as `0x${string}`);
  if (dropped(row, read, ports)) {
    await ports.ledger.markReorged(network, row.txHash);
    return { status: 'reorged', message: `the transfer of ${row.txHash} is no longer on chain; the claim is revoked` };
  }
  if (read.kind === 'found') {
    await ports.ledger.markFinal(network, row.txHash);
    return { status: 'final', message: `still on chain in block ${read.receipt.blockNumber}` };
  }
  return { status: 'pending', message: read.kind === 'unavailable' ? 'no provider answered' : 'providers are behind the claimed block' };
}
