/**
 * `npm run export [-- <dir>]`: writes the ledger and the card sales of the running local stack
 * (its DynamoDB Local, from `npm start`'s endpoints file, local/endpoints.ts; or DYNAMODB_ENDPOINT,
 * or DynamoDB Local on DYNAMODB_PORT) in the format of DynamoDB's ExportTableToPointInTime,
 * under the same S3 layout the daily export uses in AWS:
 *   <dir>/<prefix>/<snapshot>/AWSDynamoDB/<export id>/manifest-summary.json
 *   <dir>/<prefix>/<snapshot>/AWSDynamoDB/<export id>/manifest-files.json   (one JSON line per data file)
 *   <dir>/<prefix>/<snapshot>/AWSDynamoDB/<export id>/data/<name>.json.gz    ({"Item":{…}} lines)
 * `npm run revenue -- <dir>` reads it (`npm run revenue`, the newest). Default dir: `exports/<snapshot>` in
 * the running start's data dir (.data/ for an in-memory one, or DATA_DIR).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { INFRA_ENV } from '../lambdas/contract/env';
import { EXPORTED_TABLES, type ExportedTable } from '../lambdas/contract/finance-export';
import { tableName } from '../lambdas/platform/table-names';
import { dynamoClient, scanItems } from '../lambdas/platform/adapters/dynamo-client';
import { toolEndpoints } from './endpoints';

/** Items per data file; DynamoDB's own files are larger, the reader must not care. */
const ITEMS_PER_FILE = 5_000;

/** Writes one table's export; returns its directory (`…/AWSDynamoDB/<export id>`). */
export async function exportTable(client: DynamoDBClient, t: ExportedTable, dir: string, snapshot: Date): Promise<string> {
  const started = new Date();
  const exportId = `${snapshot.getTime()}-${randomBytes(4).toString('hex')}`;
  const s3Prefix = `${t.prefix}/${snapshot.toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
  const key = `${s3Prefix}/AWSDynamoDB/${exportId}`;
  mkdirSync(join(dir, key, 'data'), { recursive: true });
  const manifestLines: string[] = [];
  let batch: string[] = [];
  let total = 0;
  let bytes = 0;
  const flush = () => {
    if (batch.length === 0) return;
    const name = `${randomBytes(12).toString('hex')}.json.gz`;
    const gz = gzipSync(`${batch.join('\n')}\n`);
    writeFileSync(join(dir, key, 'data', name), gz);
    bytes += gz.length;
    manifestLines.push(
      JSON.stringify({
        itemCount: batch.length,
        md5Checksum: createHash('md5').update(gz).digest('base64'),
        etag: createHash('md5').update(gz).digest('hex'),
        dataFileS3Key: `${key}/data/${name}`,
      }),
    );
    batch = [];
  };
  for await (const item of scanItems(client, tableName(t.table))) {
    batch.push(JSON.stringify({ Item: item }));
    total++;
    if (batch.length >= ITEMS_PER_FILE) flush();
  }
  flush();
  writeFileSync(join(dir, key, 'manifest-files.json'), manifestLines.map((l) => `${l}\n`).join(''));
  writeFileSync(
    join(dir, key, 'manifest-summary.json'),
    JSON.stringify({
      version: '2020-06-30',
      exportArn: `arn:aws:dynamodb:local:000000000000:table/${tableName(t.table)}/export/${exportId}`,
      startTime: started.toISOString(),
      endTime: new Date().toISOString(),
      tableArn: `arn:aws:dynamodb:local:000000000000:table/${tableName(t.table)}`,
      tableId: tableName(t.table),
      exportTime: snapshot.toISOString(),
      s3Bucket: 'local',
      s3Prefix,
      s3SseAlgorithm: 'AES256',
      s3SseKmsKeyId: null,
      manifestFilesS3Key: `${key}/manifest-files.json`,
      billedSizeBytes: bytes,
      itemCount: total,
      outputFormat: 'DYNAMODB_JSON',
      exportType: 'FULL_EXPORT',
    }),
  );
  return join(dir, key);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The same client the handlers use, pointed at the running start's DynamoDB unless DYNAMODB_ENDPOINT says otherwise.
  const running = toolEndpoints(process.env);
  process.env[INFRA_ENV.dynamodbEndpoint] ??= running.dynamodbEndpoint;
  const endpoint = process.env[INFRA_ENV.dynamodbEndpoint];
  const client = dynamoClient();
  const snapshot = new Date();
  snapshot.setUTCMilliseconds(0);
  const dir = resolve(process.argv[2] ?? join(running.exportsDir, snapshot.toISOString().replace(/[:.]/g, '-')));
  try {
    for (const t of EXPORTED_TABLES) console.error(`exported ${tableName(t.table)} to ${await exportTable(client, t, dir, snapshot)}`);
    console.log(dir);
  } catch (e) {
    console.error(`export could not read ${endpoint}: ${(e as Error).message}`);
    console.error('Is `npm start` running? Set DYNAMODB_ENDPOINT (or DYNAMODB_PORT) to reach another database.');
    process.exit(2);
  } finally {
    client.destroy();
  }
}
