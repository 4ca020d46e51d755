import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { cardSaleFact, ledgerFact, type TallyFact, type TalliedRow, type TalliedSale } from '../core/counters';
import type { StreamChange } from '../fold';

type Image = Record<string, AttributeValue>;

/**
 * A stream image as a fact. The two streams folded are told apart by their key: the ledger's items
 * are keyed `pk`, card sales `id`. Anything else (an item that is neither) is not a figure.
 */
function factOf(image: Image | undefined): TallyFact | undefined {
  if (!image) return undefined;
  const item = unmarshall(image);
  if (typeof item['pk'] === 'string') return ledgerFact(item as unknown as TalliedRow);
  // Every recorded card sale is a sale of its day, whatever Stripe reported later: a dispute or a
  // partial refund folds to nothing here; refunds adding up to the sale mark it refunded in full (`f`).
  if (typeof item['id'] === 'string' && typeof item['amountCents'] === 'number') return cardSaleFact(item as unknown as TalliedSale);
  return undefined;
}

/** Lambda's DynamoDB stream records as changes of facts, in the stream's order. */
export function streamChanges(records: readonly DynamoDBRecord[]): StreamChange[] {
  return records.map((r) => {
    const sequence = r.dynamodb?.SequenceNumber;
    if (!sequence) throw new Error(`stream record ${r.eventID ?? '?'} has no sequence number`);
    return {
      sequence,
      before: factOf(r.dynamodb?.OldImage as Image | undefined),
      after: factOf(r.dynamodb?.NewImage as Image | undefined),
    };
  });
}
