import { GetItemCommand, PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { SETTLEMENTS_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { conditionally, isConditionFailure, queryItems } from '../../platform/adapters/dynamo-client';
import type { FundsHold, InFlightSettlements, LastSettled, PaymentIdRecord, SettlementRecord, Settlements } from '../ports';

/** A payer's item: what the relayer has in flight for it, per token, and its cool-down. Lower case. */
const payerKey = (payer: string): string => `PAYER#${payer.toLowerCase()}`;
/** A payer's payment identifier (x402's payment-identifier extension): the first payment sent under it. */
const paymentIdKey = (payer: string, id: string): string => `PAYID#${payer.toLowerCase()}#${id}`;
/** An hour's item: the gas of the relayer's reverted transfers in that UTC hour. */
const hourKey = (hour: string): string => `REVERTS#${hour}`;
/** One hold in the payer's `held` set: token, amount and settlement, so it can be released without reading the settlement. */
const entryOf = (h: FundsHold): string => `${h.token.toLowerCase()}|${h.amount}|${h.pk}`;
/**
 * The settlement's shard of the sparse `inFlight` index: the last hex digit of its key, which ends
 * with the authorization's random 32-byte nonce, so claims spread evenly over 16 index partitions.
 */
const inFlightShard = (pk: string): string => pk.slice(-1);
const IN_FLIGHT_SHARDS = [...'0123456789abcdef'];
/** The settlements of a payer's other holds (its other tokens: a token holds one at a time), from its `held` set. */
const othersOf = (held: string[], entry: string): string[] => held.filter((e) => e !== entry).map((e) => e.split('|').slice(2).join('|'));
/** The payer item's note of its last settlement of a token that ended settled: `<epoch ms>|<resource>|<settlement key>`. */
const lastSettledName = (token: string): string => `settled#${token.toLowerCase()}`;
const lastSettledOf = (value: string | undefined): LastSettled | undefined => {
  const [at, resource, ...pk] = (value ?? '').split('|');
  return value && resource && pk.length > 0 ? { at: Number(at), resource, pk: pk.join('|') } : undefined;
};
/** Payer and hour items go after a week without a write (TTL); a hold lasts minutes. */
const KEEP_SECONDS = 7 * 86400;

/**
 * x402 settlements in DynamoDB, one item per authorization. Every step is one conditional write
 * on that item: the claim (`attribute_not_exists`), a take-over and the signed transaction (both
 * only while the caller's lease holds the claim), and the outcome (once, from `signed`).
 *
 * Beside them, one item per payer (`PAYER#<address>`) holds what the relayer has in flight for
 * it (one settlement per token at most), `inflight#<token>` in atomic units with the settlements in
 * `held`, `coolUntil`, `releasedAt` (epoch ms of the last release) and `settled#<token>` (the
 * last settlement of the token that ended settled: when, its resource, its key); and one
 * item per UTC hour (`REVERTS#<hour>`) sums the gas of reverted relayer transfers. Both are
 * written only by their own payer's settlements, or when a transfer reverted.
 */
/**
 * A record's resource is stored as `skill`, the attribute the finance export reads
 * (contract/finance-export.ts) and items written before the facilitator had its own room carry.
 */
const toItem = ({ resource, ...rest }: SettlementRecord & { inFlightShard?: string }) => ({ ...rest, skill: resource });
const fromItem = (item: Record<string, unknown>): SettlementRecord => {
  const { skill, inFlightShard: _shard, ...rest } = item as Omit<SettlementRecord, 'resource'> & { skill: string; inFlightShard?: string };
  return { ...rest, resource: skill };
};

export function dynamoSettlements(client: DynamoDBClient, table = tableName(SETTLEMENTS_TABLE)): Settlements {
  const get = async (pk: string): Promise<SettlementRecord | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk }), ConsistentRead: true }));
    return out.Item ? fromItem(unmarshall(out.Item)) : undefined;
  };
  const getPayer = async (
    payer: string,
    token?: string,
  ): Promise<{ held: string[]; coolUntil: number | undefined; releasedAt: number | undefined; lastSettled: LastSettled | undefined }> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk: payerKey(payer) }), ConsistentRead: true }));
    const item = out.Item ?? {};
    return {
      held: item['held']?.SS ?? [],
      coolUntil: item['coolUntil']?.N !== undefined ? Number(item['coolUntil'].N) : undefined,
      releasedAt: item['releasedAt']?.N !== undefined ? Number(item['releasedAt'].N) : undefined,
      lastSettled: token === undefined ? undefined : lastSettledOf(item[lastSettledName(token)]?.S),
    };
  };
  /** Puts a settlement's item only where none is (its key is the authorization's); the item already there otherwise. */
  const createOnce = async (record: SettlementRecord & { inFlightShard?: string }): Promise<SettlementRecord | undefined> => {
    const item = toItem(record);
    try {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: marshall(item, { removeUndefinedValues: true }),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return undefined;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
      const existing = await get(item.pk);
      if (!existing) throw new Error(`settlement ${item.pk} refused the write but cannot be read`, { cause: e });
      return existing;
    }
  };
  return {
    get,
    async claim(record) {
      // The idempotency of the x402 flow: one item per (token, authorizer, nonce), created once,
      // before anything is signed or sent. A retry or a parallel duplicate finds the existing one.
      // In the `inFlight` index until the outcome is written (finish removes the shard).
      const existing = await createOnce({ ...record, inFlightShard: inFlightShard(record.pk) });
      return existing ? { claimed: false, existing } : { claimed: true };
    },
    async consume(record) {
      // The same key and condition as a claim, so one of the two wins; never in the `inFlight`
      // index (nothing is in flight), with its TTL so it goes once the authorization is void.
      const existing = await createOnce(record);
      return existing ? { consumed: false, existing } : { consumed: true };
    },
    async rememberPaymentId(record) {
      const key = paymentIdKey(record.payer, record.id);
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({ ...record, pk: key, payer: record.payer.toLowerCase() }),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return { first: true };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk: key }), ConsistentRead: true }));
      if (!out.Item) throw new Error(`payment identifier ${key} refused the record but cannot be read`);
      const { pk: _pk, ...existing } = unmarshall(out.Item) as PaymentIdRecord & { pk: string };
      return { first: false, existing };
    },
    takeOver(pk, lease, next) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: next.source ? 'SET #lease = :next, #at = :at, #source = :source' : 'SET #lease = :next, #at = :at',
            ConditionExpression: '#state = :claimed AND #lease = :lease',
            ExpressionAttributeNames: {
              '#state': 'state',
              '#lease': 'lease',
              '#at': 'claimedAt',
              ...(next.source ? { '#source': 'source' } : {}),
            },
            ExpressionAttributeValues: marshall({
              ':next': next.lease,
              ':at': next.claimedAt,
              ':claimed': 'claimed',
              ':lease': lease,
              ...(next.source ? { ':source': next.source } : {}),
            }),
          }),
        ),
      );
    },
    signed(pk, lease, tx) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: 'SET #state = :signed, #tx = :tx, #raw = :raw, #relayer = :relayer',
            ConditionExpression: '#state = :claimed AND #lease = :lease',
            ExpressionAttributeNames: { '#state': 'state', '#tx': 'txHash', '#raw': 'raw', '#lease': 'lease', '#relayer': 'relayer' },
            ExpressionAttributeValues: marshall({
              ':signed': 'signed',
              ':tx': tx.txHash.toLowerCase(),
              ':raw': tx.raw,
              ':relayer': tx.from.toLowerCase(),
              ':claimed': 'claimed',
              ':lease': lease,
            }),
          }),
        ),
      );
    },
    replaced(pk, replaces, tx) {
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: 'SET #tx = :tx, #raw = :raw, #relayer = :relayer',
            ConditionExpression: '#state = :signed AND #tx = :old',
            ExpressionAttributeNames: { '#state': 'state', '#tx': 'txHash', '#raw': 'raw', '#relayer': 'relayer' },
            ExpressionAttributeValues: marshall({
              ':signed': 'signed',
              ':tx': tx.txHash.toLowerCase(),
              ':raw': tx.raw,
              ':relayer': tx.from.toLowerCase(),
              ':old': replaces.toLowerCase(),
            }),
          }),
        ),
      );
    },
    async finish(pk, outcome) {
      const fields = Object.entries(outcome).filter(([k, v]) => k !== 'state' && v !== undefined);
      // Once: a second request that saw the same receipt finds the outcome already written.
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            // Written out of the `inFlight` index in the same write (no shard, no index entry).
            UpdateExpression: `SET #state = :state, ${fields.map(([k]) => `#${k} = :${k}`).join(', ')} REMOVE #shard`,
            ConditionExpression: '#state IN (:signed, :claimed)',
            // Every name through a placeholder: DynamoDB reserves hundreds of words (`raw` among them).
            ExpressionAttributeNames: {
              '#state': 'state',
              '#shard': 'inFlightShard',
              ...Object.fromEntries(fields.map(([k]) => [`#${k}`, k])),
            },
            ExpressionAttributeValues: marshall({
              ':state': outcome.state,
              ':signed': 'signed',
              ':claimed': 'claimed',
              ...Object.fromEntries(fields.map(([k, v]) => [`:${k}`, v])),
            }),
          }),
        ),
      );
    },
    async escrowStep(pk, move, fields) {
      const entries = Object.entries(fields);
      // `authorized` is a settled escrow record with no stage written yet, or the stage itself (after a reverted step).
      const from =
        move.from === 'authorized'
          ? '#state = :settled AND #scheme = :scheme AND (attribute_not_exists(#stage) OR #stage = :from)'
          : '#state = :settled AND #stage = :from';
      return conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk }),
            UpdateExpression: `SET #stage = :to${entries.map(([k]) => `, #${k} = :${k}`).join('')}`,
            ConditionExpression: move.tx ? `${from} AND #txField = :txValue` : from,
            ExpressionAttributeNames: {
              '#state': 'state',
              '#stage': 'escrowStage',
              ...(move.from === 'authorized' ? { '#scheme': 'scheme' } : {}),
              ...(move.tx ? { '#txField': move.tx.field } : {}),
              ...Object.fromEntries(entries.map(([k]) => [`#${k}`, k])),
            },
            ExpressionAttributeValues: marshall({
              ':settled': 'settled',
              ':from': move.from,
              ':to': move.to,
              ...(move.from === 'authorized' ? { ':scheme': 'auth-capture' } : {}),
              ...(move.tx ? { ':txValue': move.tx.value } : {}),
              ...Object.fromEntries(entries.map(([k, v]) => [`:${k}`, v])),
            }),
          }),
        ),
      );
    },
    async hold(hold, nowSeconds) {
      const entry = entryOf(hold);
      const names = { '#inf': `inflight#${hold.token.toLowerCase()}`, '#cool': 'coolUntil', '#held': 'held', '#exp': 'expiresAt' };
      // What the relayer may risk for a payer: one settlement of a token in flight at a time (I1),
      // never while it cools down. One conditional write on the payer's own item, so parallel
      // settlements (on any instance) cannot both pass; the same settlement holding again changes nothing.
      try {
        const out = await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: payerKey(hold.payer) }),
            UpdateExpression: 'ADD #inf :amount, #held :entry SET #exp = :exp',
            ConditionExpression:
              '(attribute_not_exists(#cool) OR #cool <= :now) AND (attribute_not_exists(#inf) OR #inf = :zero) AND NOT contains(#held, :one)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ...marshall({ ':amount': hold.amount, ':now': nowSeconds, ':zero': 0, ':one': entry, ':exp': nowSeconds + KEEP_SECONDS }),
              ':entry': { SS: [entry] },
            },
            // When the payer's last hold was released: a funds read from before it is stale.
            ReturnValues: 'ALL_OLD',
          }),
        );
        const released = out.Attributes?.['releasedAt']?.N;
        return {
          kind: 'held',
          releasedAt: released === undefined ? undefined : Number(released),
          otherTokens: othersOf(out.Attributes?.['held']?.SS ?? [], entry),
          lastSettled: lastSettledOf(out.Attributes?.[lastSettledName(hold.token)]?.S),
        };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
      const item = await getPayer(hold.payer, hold.token);
      if (item.held.includes(entry))
        return { kind: 'held', releasedAt: item.releasedAt, otherTokens: othersOf(item.held, entry), lastSettled: item.lastSettled };
      if (item.coolUntil !== undefined && item.coolUntil > nowSeconds) return { kind: 'cooling', until: item.coolUntil };
      return { kind: 'busy' };
    },
    async release(hold, opts = {}) {
      const entry = entryOf(hold);
      const cool = opts.coolUntil !== undefined;
      const settled = opts.settled;
      const released = await conditionally(
        client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: payerKey(hold.payer) }),
            UpdateExpression: `ADD #inf :minus DELETE #held :entry SET #rel = :rel${cool ? ', #cool = :cool' : ''}${settled ? ', #last = :last' : ''}`,
            ConditionExpression: 'contains(#held, :one)',
            ExpressionAttributeNames: {
              '#inf': `inflight#${hold.token.toLowerCase()}`,
              '#held': 'held',
              '#rel': 'releasedAt',
              ...(cool ? { '#cool': 'coolUntil' } : {}),
              ...(settled ? { '#last': lastSettledName(hold.token) } : {}),
            },
            ExpressionAttributeValues: {
              ...marshall({
                ':minus': -hold.amount,
                ':one': entry,
                ':rel': Date.now(),
                ...(cool ? { ':cool': opts.coolUntil } : {}),
                ...(settled ? { ':last': `${settled.at}|${settled.resource}|${hold.pk}` } : {}),
              }),
              ':entry': { SS: [entry] },
            },
          }),
        ),
      );
      // Released already (a retry): the cool-down still applies.
      if (!released && cool) {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: payerKey(hold.payer) }),
            UpdateExpression: 'SET #cool = :cool',
            ExpressionAttributeNames: { '#cool': 'coolUntil' },
            ExpressionAttributeValues: marshall({ ':cool': opts.coolUntil }),
          }),
        );
      }
    },
    async holds(token, payer) {
      const lower = token.toLowerCase();
      return (await getPayer(payer)).held.flatMap((e) => {
        const [t, amount, ...pk] = e.split('|');
        return t === lower ? [{ pk: pk.join('|'), token: t, payer: payer.toLowerCase(), amount: BigInt(amount!) }] : [];
      });
    },
    async addRevertedGas(hour, wei) {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: marshall({ pk: hourKey(hour) }),
          UpdateExpression: 'ADD #wei :wei, #n :one SET #exp = :exp',
          ExpressionAttributeNames: { '#wei': 'wei', '#n': 'reverts', '#exp': 'expiresAt' },
          ExpressionAttributeValues: marshall({ ':wei': wei, ':one': 1, ':exp': Math.floor(Date.now() / 1000) + KEEP_SECONDS }),
        }),
      );
    },
  };
}

/**
 * The settlements in flight, from the sparse `inFlight` index: one Query per shard (16, in
 * parallel), each only the keys and claim times in the window. An empty shard costs 0.5 RCU.
 */
export function dynamoInFlightSettlements(client: DynamoDBClient, table = tableName(SETTLEMENTS_TABLE)): InFlightSettlements {
  return {
    async claimedBetween(from, to) {
      const shards = await Promise.all(
        IN_FLIGHT_SHARDS.map(async (shard) => {
          const rows: Array<{ pk: string; claimedAt: string }> = [];
          for await (const item of queryItems(client, {
            TableName: table,
            IndexName: 'inFlight',
            KeyConditionExpression: '#shard = :shard AND #at BETWEEN :from AND :to',
            ExpressionAttributeNames: { '#shard': 'inFlightShard', '#at': 'claimedAt' },
            ExpressionAttributeValues: marshall({ ':shard': shard, ':from': from, ':to': to }),
          })) {
            const row = unmarshall(item) as { pk: string; claimedAt: string };
            // BETWEEN includes `to`; the window is half-open.
            if (row.claimedAt < to) rows.push({ pk: row.pk, claimedAt: row.claimedAt });
          }
          return rows;
        }),
      );
      return shards.flat().sort((a, b) => a.claimedAt.localeCompare(b.claimedAt));
    },
  };
}
