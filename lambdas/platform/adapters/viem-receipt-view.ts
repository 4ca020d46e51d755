/**
 * What the payments domain reads from a transaction receipt (core/verify-transfer.ts's
 * `ReceiptView`): its status and block, the ERC-20 transfers and EIP-3009 authorizations it logged,
 * and its sender. One decoding for the chain reader (a proof's receipt) and the relayer (its own
 * settlement's receipt, which then feeds the ledger claim without a second read).
 */
import { decodeEventLog, parseAbiItem, type TransactionReceipt } from 'viem';
import type { AuthorizationLog, ReceiptView, TransferLog } from '../../contract/chain';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');

export function receiptView(receipt: TransactionReceipt): ReceiptView {
  const transferLogs: TransferLog[] = [];
  const authorizationLogs: AuthorizationLog[] = [];
  for (const log of receipt.logs) {
    // ERC-20 Transfer has exactly three topics (ERC-721's has four), as has EIP-3009's AuthorizationUsed; decode and keep the emitter.
    if (log.topics.length !== 3) continue;
    try {
      const ev = decodeEventLog({ abi: [TRANSFER, AUTHORIZATION_USED], data: log.data, topics: log.topics });
      if (ev.eventName === 'Transfer')
        transferLogs.push({ address: log.address, from: ev.args.from, to: ev.args.to, value: ev.args.value, logIndex: log.logIndex });
      else authorizationLogs.push({ address: log.address, authorizer: ev.args.authorizer, nonce: ev.args.nonce });
    } catch {
      /* another event */
    }
  }
  return {
    status: receipt.status,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    transferLogs,
    authorizationLogs,
    sender: receipt.from,
  };
}
