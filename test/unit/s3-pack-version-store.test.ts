/**
 * Payments' version store in AWS (issue 52): the versions bucket, read by key with GetObject only.
 * Against a loopback stand-in of S3 (AWS_ENDPOINT_URL_S3): a record comes back only if its pack
 * hashes to the digest asked for; a key S3 does not have (404, or 403 to a reader without
 * s3:ListBucket) is no version; and the wiring chooses the bucket when PACK_VERSIONS_BUCKET is set.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSIONS_DIST_DIR } from '../../lambdas/contract/data-dirs';
import { INFRA_ENV } from '../../lambdas/contract/env';
import { s3PackVersionStore } from '../../lambdas/payments/adapters/s3-pack-version-store';
import { packVersionStoreFromEnv } from '../../lambdas/payments/wiring';

const [a, b] = readdirSync(join(VERSIONS_DIST_DIR, 'sha256'))
  .filter((n) => n.endsWith('.json'))
  .sort()
  .slice(0, 2)
  .map((n) => n.replace(/\.json$/, ''));
const DENIED = 'd'.repeat(64);
const MISSING = 'e'.repeat(64);
const record = (digest: string): Buffer => readFileSync(join(VERSIONS_DIST_DIR, 'sha256', `${digest}.json`));

let server: Server;
const requests: string[] = [];
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const key = decodeURIComponent((req.url ?? '').replace(/\?.*$/, '')).replace(/^\/versions-bucket\//, '');
    const error = (status: number, code: string) => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
    };
    if (key === `sha256/${a}.json`) res.end(record(a!));
    // Under b's key, another version's bytes: not b.
    else if (key === `sha256/${b}.json`) res.end(record(a!));
    else if (key === `sha256/${DENIED}.json`) error(403, 'AccessDenied');
    else error(404, 'NoSuchKey');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  for (const k of ['AWS_ENDPOINT_URL_S3', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) saved[k] = process.env[k];
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'us-east-1',
  });
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  await new Promise((resolve) => server.close(resolve));
});

describe('s3PackVersionStore', () => {
  it('returns the record under a digest only if its pack hashes to that digest', async () => {
    const store = s3PackVersionStore('versions-bucket');
    expect((await store.get(a!))?.digest).toBe(a);
    expect(await store.get(b!)).toBeUndefined();
    expect(requests).toContain(`GET /versions-bucket/sha256/${a}.json?x-id=GetObject`);
  });

  it('reads a key S3 does not have (404, or 403 without s3:ListBucket) as no version, and asks nothing for a malformed digest', async () => {
    const store = s3PackVersionStore('versions-bucket');
    expect(await store.get(MISSING)).toBeUndefined();
    expect(await store.get(DENIED)).toBeUndefined();
    const before = requests.length;
    expect(await store.get('../../etc/passwd')).toBeUndefined();
    expect(requests.length).toBe(before);
  });

  it('is what the wiring chooses when PACK_VERSIONS_BUCKET is set; without it dist/versions is read', async () => {
    const before = requests.length;
    expect((await packVersionStoreFromEnv({ [INFRA_ENV.packVersionsBucket]: 'versions-bucket' }).get(a!))?.digest).toBe(a);
    expect(requests.length).toBe(before + 1);
    expect((await packVersionStoreFromEnv({}).get(a!))?.digest).toBe(a);
    expect(requests.length).toBe(before + 1);
  });
});
