import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TALLIES_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { conditionally, isConditionFailure, queryItems, scanItems } from '../../platform/adapters/dynamo-client';
import { addDays, daysBetween } from '../../contract/days';
import {
  addLine,
  dayPartition,
  METRICS,
  parseLine,
  targetKey,
  TOTAL_PK,
  walletPartition,
  type Counters,
  type MetricCounts,
  type TallyDeltas,
} from '../core/counters';
import type { CounterStore, Figures } from '../ports';

/** A shard's mark: `w` and 12 hex digits (see fold.ts). */
const MARK = /^w[0-9a-f]{12}$/;

/** An item's counts; numbers read as exact strings (sums of atomic units can pass 2^53). */
function countsOf(item: Record<string, AttributeValue>): MetricCounts {
  const out: MetricCounts = new Map();
  for (const m of METRICS) if (item[m]?.N !== undefined) out.set(m, BigInt(item[m].N));
  return out;
}

/** The figures table in DynamoDB (see TALLIES_TABLE): small counter items, read eventually consistent. */
export function dynamoCounters(client: DynamoDBClient, table = tableName(TALLIES_TABLE)): CounterStore & Figures {
  /** Every item of one partition, optionally within a sort-key range: one Query (more only past 1 MB). */
  const query = async (pk: string, range?: { from: string; to: string }) => {
    const items: Record<string, AttributeValue>[] = [];
    for await (const item of queryItems(client, {
      TableName: table,
      KeyConditionExpression: range ? 'pk = :pk AND sk BETWEEN :from AND :to' : 'pk = :pk',
      ExpressionAttributeValues: {
        ':pk': { S: pk },
        ...(range ? { ':from': { S: range.from }, ':to': { S: range.to } } : {}),
      },
    }))
      items.push(item);
    return items;
  };

  /** A scope's items (`TOTAL`, a wallet) as flat counters. */
  const scope = async (pk: string): Promise<Counters> => {
    const out: Counters = new Map();
    for (const item of await query(pk)) {
      const line = parseLine(item['sk']?.S ?? '', false);
      if (line) addLine(out, line, countsOf(item));
    }
    return out;
  };

  return {
    async apply(target, counts, mark, expected) {
      const names: Record<string, string> = { '#w': mark.attribute };
      const values: Record<string, AttributeValue> = {
        ':mark': { S: `${mark.last}@${Math.floor(Date.now() / 1000)}` },
      };
      const adds: string[] = [];
      for (const [metric, by] of counts) {
        names[`#${metric}`] = metric;
        values[`:${metric}`] = { N: by.toString() };
        adds.push(`#${metric} :${metric}`);
      }
      let condition: string;
      if (expected === null) {
        condition = 'attribute_not_exists(#w) OR #w < :first';
        values[':first'] = { S: mark.first };
      } else {
        condition = '#w = :expected';
        values[':expected'] = { S: expected };
      }
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { pk: { S: target.pk }, sk: { S: target.sk } },
            UpdateExpression: `ADD ${adds.join(', ')} SET #w = :mark`,
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            // The item that refused says how far this shard got in it, without a second read.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return 'applied';
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        const stored = (e as { Item?: Record<string, AttributeValue> }).Item?.[mark.attribute]?.S;
        if (stored === undefined) throw new Error(`counter item ${target.pk} ${target.sk} refused the fold without a mark`, { cause: e });
        return { stale: stored };
      }
    },
    async all() {
      const out: TallyDeltas = new Map();
      for await (const item of scanItems(client, table)) {
        const target = { pk: item['pk']!.S!, sk: item['sk']!.S! };
        const counts = countsOf(item);
        for (const [m, v] of counts) if (v === 0n) counts.delete(m);
        if (counts.size > 0) out.set(targetKey(target), { target, counts });
      }
      return out;
    },
    async prune(before) {
      const cutoff = Math.floor(before.getTime() / 1000);
      let removed = 0;
      for await (const item of scanItems(client, table)) {
        for (const [name, value] of Object.entries(item)) {
          const at = Number(value.S?.split('@')[1]);
          if (!MARK.test(name) || !(at < cutoff)) continue;
          const gone = await conditionally(
            client.send(
              new UpdateItemCommand({
                TableName: table,
                Key: { pk: item['pk']!, sk: item['sk']! },
                UpdateExpression: 'REMOVE #w',
                // Only the mark as read: a shard still folding into the item keeps its newer one.
                ConditionExpression: '#w = :seen',
                ExpressionAttributeNames: { '#w': name },
                ExpressionAttributeValues: { ':seen': value },
              }),
            ),
          );
          if (gone) removed++;
        }
      }
      return removed;
    },
    totals: () => scope(TOTAL_PK),
    wallet: (address) => scope(walletPartition(address)),
    async days(from, to) {
      const out = new Map<string, Counters>();
      // One Query per calendar month of the window (at most 13 for the longest window).
      const months = new Set<string>();
      for (let i = 0, n = daysBetween(from, to); i <= n; i++) months.add(addDays(from, i).slice(0, 7));
      const parts = await Promise.all(
        [...months].map(async (month) => {
          const lo = from.slice(0, 7) === month ? from.slice(8, 10) : '01';
          const hi = to.slice(0, 7) === month ? to.slice(8, 10) : '31';
          // `~` sorts after every character a product id holds: the last key of day `hi`.
          return { month, items: await query(dayPartition(`${month}-01`), { from: `${lo}|`, to: `${hi}|~` }) };
        }),
      );
      for (const { month, items } of parts) {
        for (const item of items) {
          const line = parseLine(item['sk']?.S ?? '', true);
          if (!line) continue;
          const day = `${month}-${line.day}`;
          const counters = out.get(day) ?? new Map<string, bigint>();
          addLine(counters, line, countsOf(item));
          out.set(day, counters);
        }
      }
      for (const [day, counters] of out) if (counters.size === 0) out.delete(day);
      return out;
    },
  };
}
