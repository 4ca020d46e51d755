import { GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ACCESS_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure } from '../../platform/adapters/dynamo-client';
import { meterPeriod } from '../core/decide-access';
import type { DrawResult, MeterRecord, MeterStore } from '../ports';
import { n, s, walletPartition, type Item } from './access-items';

/**
 * How often setCap and draw re-read and retry. A draw's conditions are on values, not versions,
 * so parallel draws of other skills do not make it retry; only a month rollover or a cap change
 * landing between its read and its write does, and those are rare.
 */
const MAX_ATTEMPTS = 10;

const key = (wallet: string): Item => ({ pk: { S: `METER#${wallet.toLowerCase()}` } });
const big = (v: AttributeValue | undefined): bigint => BigInt(v?.N ?? '0');

/** Expressions name attributes through `#` so that none can collide with a DynamoDB reserved word. */
const NAMES = {
  '#wallet': 'wallet',
  '#balance': 'balance',
  '#cap': 'cap',
  '#headroom': 'headroom',
  '#period': 'period',
  '#spent': 'spentInPeriod',
  '#toppedUp': 'toppedUp',
  '#drawn': 'drawn',
  '#credited': 'credited',
} as const;
type Name = keyof typeof NAMES;

/** The `#` names an expression uses: DynamoDB rejects names that no expression mentions. */
function namesIn(...expressions: string[]): Record<string, string> {
  const text = expressions.join(' ');
  return Object.fromEntries((Object.keys(NAMES) as Name[]).filter((k) => new RegExp(`${k}\\b`).test(text)).map((k) => [k, NAMES[k]]));
}

function fromItem(item: Item): MeterRecord {
  return {
    wallet: item['wallet']?.S ?? '',
    balance: big(item['balance']),
    cap: item['cap'] ? big(item['cap']) : undefined,
    period: item['period']?.S ?? '',
    spentInPeriod: big(item['spentInPeriod']),
    toppedUp: big(item['toppedUp']),
    // Sets cannot be empty in DynamoDB: absent means none.
    drawn: item['drawn']?.SS ?? [],
    credited: item['credited']?.SS ?? [],
  };
}

/**
 * Prepaid meters in the access table, one item per wallet (`pk = METER#<wallet>`, listed on
 * gsi1 under `METER`); the wallet is stored lower-case. Besides the cap, the item carries
 * `headroom` (cap minus this month's spend, only while there is a cap), so that a draw can
 * check the cap with a plain comparison in its condition: a condition cannot subtract.
 */
export function dynamoMeters(client: DynamoDBClient, table = tableName(ACCESS_TABLE)): MeterStore {
  const read = async (wallet: string): Promise<MeterRecord | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: key(wallet), ConsistentRead: true }));
    return out.Item ? fromItem(out.Item) : undefined;
  };

  /** One conditional UpdateItem returning the new item, or undefined when its condition did not hold. */
  const update = async (wallet: string, updateExpression: string, condition: string, values: Item): Promise<MeterRecord | undefined> => {
    try {
      const out = await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key(wallet),
          UpdateExpression: updateExpression,
          ConditionExpression: condition,
          ExpressionAttributeNames: namesIn(updateExpression, condition),
          // DynamoDB rejects an empty map of values (REMOVE needs none).
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
          ReturnValues: 'ALL_NEW',
        }),
      );
      if (!out.Attributes) throw new Error(`update of the meter of ${wallet} returned no item`);
      return fromItem(out.Attributes);
    } catch (e) {
      if (isConditionFailure(e)) return undefined;
      throw e;
    }
  };

  return {
    get: read,

    async credit(wallet, transfer, amount, now) {
      const lower = wallet.toLowerCase();
      const tx = transfer.toLowerCase();
      const record = await update(
        lower,
        // Creates the meter on the first top-up (if_not_exists gives the starting values) and adds to it after.
        'SET #balance = if_not_exists(#balance, :zero) + :amt, #toppedUp = if_not_exists(#toppedUp, :zero) + :amt, ' +
          '#period = if_not_exists(#period, :p), #spent = if_not_exists(#spent, :zero), gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, #wallet = :w ' +
          'ADD #credited :txSet',
        // Each top-up transfer once, however often it is presented (true while credited is absent: a new meter).
        'NOT contains(#credited, :tx)',
        {
          ':zero': n(0n),
          ':amt': n(amount),
          ':p': s(meterPeriod(now)),
          ':gsi1pk': s(walletPartition(lower)),
          ':gsi1sk': s('METER'),
          ':w': s(lower),
          ':tx': s(tx),
          ':txSet': { SS: [tx] },
        },
      );
      if (record) return { kind: 'credited', record };
      const existing = await read(lower);
      if (!existing) throw new Error(`the meter of ${lower} failed its credit condition yet does not exist`);
      return { kind: 'already_credited', record: existing };
    },

    async setCap(wallet, cap, now) {
      if (cap === undefined) {
        // Exists: an UpdateItem would otherwise create a meter with no balance.
        return update(wallet, 'REMOVE #cap, #headroom', 'attribute_exists(pk)', {});
      }
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await read(wallet);
        if (!current) return undefined;
        // A new month starts with nothing spent; never roll back to an older month (a skewed clock).
        const p = meterPeriod(now);
        const rolls = current.period < p;
        const spent = rolls ? 0n : current.spentInPeriod;
        const headroom = cap > spent ? cap - spent : 0n;
        const record = await update(
          wallet,
          'SET #cap = :cap, #headroom = :headroom, #period = :period, #spent = :spent',
          // headroom is computed from the month and its spend as read: the write holds only if a
          // draw or a rollover has not changed either since (a free draw changes neither, and nothing to recompute).
          '#period = :readPeriod AND #spent = :readSpent',
          {
            ':cap': n(cap),
            ':headroom': n(headroom),
            ':period': s(rolls ? p : current.period),
            ':spent': n(spent),
            ':readPeriod': s(current.period),
            ':readSpent': n(current.spentInPeriod),
          },
        );
        if (record) return record;
      }
      throw new Error(`setting the cap of the meter of ${wallet} lost ${MAX_ATTEMPTS} races in a row`);
    },

    async draw(wallet, skill, price, now): Promise<DrawResult> {
      const p = meterPeriod(now);
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await read(wallet);
        if (!current) return { kind: 'refused', reason: 'no_meter', record: undefined };
        // Checked first: a skill once drawn is the wallet's, whatever the balance is now.
        if (current.drawn.includes(skill)) return { kind: 'already_drawn', record: current };
        if (current.balance < price) return { kind: 'refused', reason: 'balance', record: current };
        const rolls = current.period < p;
        const capped = current.cap !== undefined;
        // The month's spend as this draw would leave it must stay within the cap: a new month
        // starts from zero (so the cap itself is the room), the current one from its headroom.
        if (current.cap !== undefined && (rolls ? current.cap : current.cap - current.spentInPeriod) < price) {
          return { kind: 'refused', reason: 'cap', record: current };
        }

        const values: Item = { ':price': n(price), ':skill': s(skill), ':skillSet': { SS: [skill] } };
        // Common to both shapes: the balance can never go below zero, and a skill is charged once
        // (true while drawn is absent: nothing drawn yet).
        const always = '#balance >= :price AND NOT contains(#drawn, :skill)';
        // The cap shape is fixed at write time too: a cap removed or added in between fails the
        // condition instead of the expression (headroom exists exactly while cap does).
        let expression: string;
        let condition: string;
        if (rolls) {
          values[':p'] = s(p);
          values[':old'] = s(current.period);
          // The first draw of a new month resets the month's spend to this price, in the same write.
          expression = `SET #balance = #balance - :price, #period = :p, #spent = :price${capped ? ', #headroom = #cap - :price' : ''} ADD #drawn :skillSet`;
          // Still the old month (else another writer rolled it over: re-read and draw in the new
          // month), and the price alone fits in a fresh month's cap.
          condition = `#period = :old AND ${always} AND ${capped ? '#cap >= :price' : 'attribute_not_exists(#cap)'}`;
        } else {
          values[':p'] = s(current.period);
          expression = `SET #balance = #balance - :price, #spent = #spent + :price${capped ? ', #headroom = #headroom - :price' : ''} ADD #drawn :skillSet`;
          // Still the month read (a rollover in between must not add to the old month's spend), and
          // the month's spend stays within the cap: spent + price <= cap, kept as headroom >= price.
          condition = `#period = :p AND ${always} AND ${capped ? '#headroom >= :price' : 'attribute_not_exists(#cap)'}`;
        }
        const record = await update(wallet, expression, condition, values);
        if (record) return { kind: 'drawn', record };
        // The item changed since the read (another draw, a top-up, a cap, a rollover): classify it again.
      }
      throw new Error(`a draw on the meter of ${wallet} lost ${MAX_ATTEMPTS} races in a row`);
    },
  };
}
