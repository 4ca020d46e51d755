/**
 * The checkout table (CHECKOUT_TABLE): sessions, saved Idempotency-Key answers and handled
 * Stripe events, each one item changed by one conditional write.
 */
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { CHECKOUT_TABLE } from '../../contract/tables';
import { tableName } from '../../platform/table-names';
import { isConditionFailure } from '../../platform/adapters/dynamo-client';
import type { CheckoutSession, CheckoutSessions, HandledEvents, IdempotencyKeys, SavedResponse } from '../ports';

const sessionKey = (id: string): string => `SESSION#${id}`;
const epoch = (d: Date): number => Math.floor(d.getTime() / 1000);

function toSession(item: Record<string, unknown>): CheckoutSession {
  const { pk: _pk, ...session } = item;
  return session as unknown as CheckoutSession;
}

/** Sessions: `pk = SESSION#<id>`, found from Stripe's id on gsi1 (keyed on the `stripeSessionId` every session has). */
export function dynamoCheckoutSessions(client: DynamoDBClient, table = tableName(CHECKOUT_TABLE)): CheckoutSessions {
  const get = async (id: string): Promise<CheckoutSession | undefined> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk: sessionKey(id) }), ConsistentRead: true }));
    return out.Item ? toSession(unmarshall(out.Item)) : undefined;
  };
  return {
    get,
    async create(session) {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: marshall({ pk: sessionKey(session.id), ...session }, { removeUndefinedValues: true }),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },
    async byStripeId(stripeSessionId) {
      const out = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'stripeSessionId = :s',
          ExpressionAttributeValues: marshall({ ':s': stripeSessionId }),
          Limit: 1,
        }),
      );
      const item = out.Items?.[0];
      // The index is eventually consistent: read the item itself for its current state.
      return item ? get(toSession(unmarshall(item)).id) : undefined;
    },
    async transition(id, from, patch, now) {
      const names: Record<string, string> = { '#state': 'state', '#updatedAt': 'updatedAt' };
      const values: Record<string, unknown> = { ':now': now.toISOString() };
      const sets = ['#updatedAt = :now'];
      for (const [field, value] of Object.entries(patch)) {
        if (value === undefined) continue;
        names[`#${field}`] = field;
        values[`:${field}`] = value;
        sets.push(`#${field} = :${field}`);
      }
      from.forEach((state, i) => (values[`:from${i}`] = state));
      try {
        // The state read by the caller is the condition: a webhook and a cancel racing on one
        // session cannot both apply, and an out-of-order event cannot undo a completed sale.
        const out = await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: sessionKey(id) }),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: `attribute_exists(pk) AND #state IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: marshall(values),
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { ok: true, session: toSession(unmarshall(out.Attributes!)) };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        return { ok: false, current: await get(id) };
      }
    },
    async claimFirstDelivery(id, caller, now) {
      try {
        // The one write that makes a delivery the first: of two racing callers only one can set it.
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: marshall({ pk: sessionKey(id) }),
            UpdateExpression: caller === undefined ? 'SET deliveredAt = :now' : 'SET deliveredAt = :now, deliveredTo = :caller',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deliveredAt)',
            ExpressionAttributeValues: marshall({ ':now': now.toISOString(), ...(caller === undefined ? {} : { ':caller': caller }) }),
          }),
        );
        return { first: true };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        return { first: false, current: await get(id) };
      }
    },
  };
}

/** How long a saved answer replays (ACP and UCP ask for at least 24 hours). */
const KEEP_SECONDS = 24 * 3600;
/** An in-flight key older than this belongs to a request that died (Lambda times out at 30 s); a retry may take it over. */
const IN_FLIGHT_SECONDS = 35;

/** Idempotency-Keys: `pk = IDEM#<scope>#<key>` with the request's fingerprint, then its saved answer. */
export function dynamoIdempotencyKeys(client: DynamoDBClient, table = tableName(CHECKOUT_TABLE)): IdempotencyKeys {
  const pk = (scope: string, key: string): string => `IDEM#${scope}#${key}`;
  return {
    async begin(scope, key, fingerprint, now) {
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: marshall({
              pk: pk(scope, key),
              fingerprint,
              state: 'in_flight',
              lockedUntil: epoch(now) + IN_FLIGHT_SECONDS,
              expiresAt: epoch(now) + KEEP_SECONDS,
            }),
            // New key, or one whose request died in flight with this same fingerprint, or one past its day (TTL deletes late, locally never).
            ConditionExpression:
              'attribute_not_exists(pk) OR expiresAt < :now OR (#state = :flight AND lockedUntil < :now AND fingerprint = :fp)',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: marshall({ ':now': epoch(now), ':flight': 'in_flight', ':fp': fingerprint }),
          }),
        );
        return { kind: 'started' };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk: pk(scope, key) }), ConsistentRead: true }));
      const item = out.Item ? unmarshall(out.Item) : undefined;
      if (!item) return { kind: 'in_flight', retryAfterSeconds: 1 };
      if (item['fingerprint'] !== fingerprint) return { kind: 'mismatch' };
      if (item['state'] === 'done') return { kind: 'replay', response: JSON.parse(String(item['response'])) as SavedResponse };
      return { kind: 'in_flight', retryAfterSeconds: Math.max(1, Number(item['lockedUntil']) - epoch(now)) };
    },
    async finish(scope, key, fingerprint, response, now) {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: marshall({ pk: pk(scope, key) }),
          UpdateExpression: 'SET #state = :done, #response = :r, expiresAt = :exp REMOVE lockedUntil',
          ConditionExpression: 'fingerprint = :fp',
          // Both are DynamoDB reserved words.
          ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
          ExpressionAttributeValues: marshall({
            ':done': 'done',
            ':r': JSON.stringify(response),
            ':exp': epoch(now) + KEEP_SECONDS,
            ':fp': fingerprint,
          }),
        }),
      );
    },
    async abandon(scope, key, fingerprint) {
      try {
        await client.send(
          new DeleteItemCommand({
            TableName: table,
            Key: marshall({ pk: pk(scope, key) }),
            ConditionExpression: '#state = :flight AND fingerprint = :fp',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: marshall({ ':flight': 'in_flight', ':fp': fingerprint }),
          }),
        );
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
    },
  };
}

/** Stripe retries a failed delivery for up to three days; an event is remembered a little longer. */
const EVENT_KEEP_SECONDS = 4 * 86400;

/** Handled Stripe events: `pk = EVENT#<evt_…>`. */
export function dynamoHandledEvents(client: DynamoDBClient, table = tableName(CHECKOUT_TABLE)): HandledEvents {
  const pk = (id: string): string => `EVENT#${id}`;
  return {
    async seen(eventId) {
      const out = await client.send(new GetItemCommand({ TableName: table, Key: marshall({ pk: pk(eventId) }), ConsistentRead: true }));
      return out.Item !== undefined;
    },
    async remember(eventId, type, now) {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: marshall({ pk: pk(eventId), type, handledAt: now.toISOString(), expiresAt: epoch(now) + EVENT_KEEP_SECONDS }),
        }),
      );
    },
  };
}
