import {
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { TALLIES_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { conditionally, isConditionFailure } from '../../platform/adapters/dynamo-client';
import { parseCounter, TOTAL_TARGET, type Counters, type TallyDeltas, type TallyFact } from '../core/tally';
import type { Figures, FoldCursor, JournalEntry, SourceRef, TallyStore } from '../ports';

/** Items of the tallies table that are not tallies; the journal's entries share one partition. */
const SEQ = { pk: 'SEQ', sk: '-' };
const CURSOR = { pk: 'CURSOR', sk: '-' };
const JOURNAL = 'J';
/** Journal sort keys are zero-padded so that they sort as numbers. */
const entryKey = (seq: number) => ({ pk: JOURNAL, sk: String(seq).padStart(12, '0') });
/** The partitions of the tally items. */
const TALLY_PARTITIONS = ['TOTAL', 'DAY', 'WALLET'] as const;

/** `TOTAL`, `DAY#<day>` and `WALLET#<address>` as table keys. */
function tallyKey(target: string): { pk: string; sk: string } {
  if (target === TOTAL_TARGET) return { pk: 'TOTAL', sk: '-' };
  const [pk, sk] = target.split('#', 2) as [string, string | undefined];
  if ((pk !== 'DAY' && pk !== 'WALLET') || !sk) throw new Error(`not a tally target: ${target}`);
  return { pk, sk };
}
const targetOf = (pk: string, sk: string): string => (pk === 'TOTAL' ? TOTAL_TARGET : `${pk}#${sk}`);

/** The counters of a tally item; numbers are read as exact strings (sums of atomic units can pass 2^53). */
function countersOf(item: Record<string, AttributeValue> | undefined): Counters {
  const out: Counters = new Map();
  for (const [name, value] of Object.entries(item ?? {})) {
    if (value.N !== undefined && parseCounter(name)) out.set(name, BigInt(value.N));
  }
  return out;
}

function toEntry(item: Record<string, unknown>): JournalEntry {
  const seq = Number(item['seq']);
  const at = String(item['at']);
  if (item['state'] === 'void') return { seq, state: 'void', at };
  const source = item['source'] as SourceRef;
  if (item['state'] === 'published') return { seq, state: 'published', source, at, fact: item['fact'] as TallyFact };
  return { seq, state: 'reserved', source, at };
}

/** The tallies table in DynamoDB (see TALLIES_TABLE): journal, fold cursor and tally items. */
export function dynamoTallies(client: DynamoDBClient, table = tableName(TALLIES_TABLE)): TallyStore & Figures {
  const getItem = async (key: { pk: string; sk: string }) =>
    (await client.send(new GetItemCommand({ TableName: table, Key: marshall(key), ConsistentRead: true }))).Item;

  const entry = async (seq: number): Promise<JournalEntry | undefined> => {
    const item = await getItem(entryKey(seq));
    return item ? toEntry(unmarshall(item)) : undefined;
  };

  const query = async (pk: string, range?: { from: string; to: string }) => {
    const items: Record<string, AttributeValue>[] = [];
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: range ? 'pk = :pk AND sk BETWEEN :from AND :to' : 'pk = :pk',
          ExpressionAttributeValues: marshall({ ':pk': pk, ...(range ? { ':from': range.from, ':to': range.to } : {}) }),
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
  };

  return {
    async allocate() {
      const out = await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: marshall(SEQ),
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: marshall({ ':one': 1 }),
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.['n']?.N);
    },
    async head() {
      const item = await getItem(SEQ);
      return item?.['n']?.N ? Number(item['n'].N) : 0;
    },
    async reserve(seq, source, at) {
      return conditionally(
        client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({ ...entryKey(seq), seq, state: 'reserved', source, at: at.toISOString() }),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
    },
    entry,
    async publish(seq, source, fact, at) {
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall(entryKey(seq)),
            UpdateExpression: 'SET #state = :published, fact = :fact, publishedAt = :at',
            // Only the entry reserved for this very record, and only once.
            ConditionExpression: '#state = :reserved AND #source.#kind = :kind AND #source.#key = :key',
            ExpressionAttributeNames: { '#state': 'state', '#source': 'source', '#kind': 'kind', '#key': 'key' },
            ExpressionAttributeValues: marshall(
              {
                ':published': 'published',
                ':reserved': 'reserved',
                ':fact': fact,
                ':at': at.toISOString(),
                ':kind': source.kind,
                ':key': source.key,
              },
              { removeUndefinedValues: true },
            ),
          }),
        );
        return 'published';
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const now = await entry(seq);
        if (now?.state === 'void') return 'void';
        if (now?.state === 'published' && now.source.kind === source.kind && now.source.key === source.key) return 'published';
        throw new Error(`journal entry ${seq} is not reserved for ${source.kind} ${source.key}`, { cause: e });
      }
    },
    async void(seq, at) {
      return conditionally(
        client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({ ...entryKey(seq), seq, state: 'void', at: at.toISOString() }),
            ConditionExpression: 'attribute_not_exists(pk) OR #state = :reserved',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: marshall({ ':reserved': 'reserved' }),
          }),
        ),
      );
    },
    async cursor(): Promise<FoldCursor> {
      const item = await getItem(CURSOR);
      const c = item ? unmarshall(item) : {};
      return {
        next: typeof c['next'] === 'number' ? c['next'] : 1,
        stall: typeof c['stallSeq'] === 'number' ? { seq: c['stallSeq'], since: String(c['stallSince']) } : undefined,
      };
    },
    async stall(seq, at) {
      // Already done by another writer of the same change, or moved on: nothing left to do here.
      await conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall(CURSOR),
            UpdateExpression: 'SET stallSeq = :seq, stallSince = :at',
            ConditionExpression: 'attribute_not_exists(stallSeq) OR stallSeq <> :seq',
            ExpressionAttributeValues: marshall({ ':seq': seq, ':at': at.toISOString() }),
          }),
        ),
      );
    },
    async advance(from) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall(CURSOR),
            UpdateExpression: 'SET #next = :to REMOVE stallSeq, stallSince',
            ConditionExpression: from === 1 ? 'attribute_not_exists(#next) OR #next = :from' : '#next = :from',
            ExpressionAttributeNames: { '#next': 'next' },
            ExpressionAttributeValues: marshall({ ':from': from, ':to': from + 1 }),
          }),
        ),
      );
    },
    async apply(target, counters, seq) {
      if (counters.size === 0) return true;
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':seq': seq };
      const adds = [...counters].map(([name, by], i) => {
        names[`#c${i}`] = name;
        values[`:c${i}`] = by;
        return `#c${i} :c${i}`;
      });
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall(tallyKey(target)),
            // The whole exactness of the figures is this condition: an item adds each journal entry
            // once, since the fold hands them out in order and the item keeps the last it took.
            UpdateExpression: `ADD ${adds.join(', ')} SET appliedSeq = :seq`,
            ConditionExpression: 'attribute_not_exists(appliedSeq) OR appliedSeq < :seq',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: marshall(values),
          }),
        ),
      );
    },
    async all() {
      const out: TallyDeltas = new Map();
      for (const pk of TALLY_PARTITIONS) {
        for (const item of await query(pk)) {
          const counters = countersOf(item);
          if (counters.size > 0) out.set(targetOf(pk, item['sk']!.S!), counters);
        }
      }
      return out;
    },
    async totals() {
      return countersOf(await getItem(tallyKey(TOTAL_TARGET)));
    },
    async wallet(address) {
      return countersOf(await getItem({ pk: 'WALLET', sk: address.toLowerCase() }));
    },
    async days(from, to) {
      const out = new Map<string, Counters>();
      for (const item of await query('DAY', { from, to })) out.set(item['sk']!.S!, countersOf(item));
      return out;
    },
  };
}
