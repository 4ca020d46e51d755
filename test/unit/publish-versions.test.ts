/**
 * The versions publisher (issue 52): what CloudFormation runs at deploy to copy dist/versions into
 * the write-once versions bucket. It creates only what the bucket lacks, accepts a key another
 * writer made only if it holds the same version, never deletes, and always answers CloudFormation.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSIONS_DIST_DIR } from '../../lambdas/contract/data-dirs';
import { digestOfKey, holdsVersion, publishVersions } from '../../lambdas/catalog/publish-versions';
import { handler } from '../../lambdas/catalog/publish-versions-handler';
import type { VersionBucket, VersionFiles } from '../../lambdas/catalog/ports';
import { customResourceAnswer, isCustomResourceEvent } from '../../lambdas/platform/custom-resource';

const keys = readdirSync(join(VERSIONS_DIST_DIR, 'sha256'))
  .filter((n) => n.endsWith('.json'))
  .sort()
  .slice(0, 12)
  .map((n) => `sha256/${n}`);
const bytes = (key: string): Uint8Array => readFileSync(join(VERSIONS_DIST_DIR, key));

const files = (over: Partial<Record<string, Uint8Array>> = {}): VersionFiles => ({
  keys: async () => keys,
  read: async (key) => over[key] ?? bytes(key),
});

/** A bucket in memory with S3's conditional create; `beforePut` runs first, as another writer might. */
function bucket(held: Map<string, Uint8Array>, listed = new Set(held.keys()), beforePut?: (key: string) => void) {
  const puts: string[] = [];
  const b: VersionBucket = {
    keys: async () => new Set(listed),
    putNew: async (key, body) => {
      beforePut?.(key);
      puts.push(key);
      if (held.has(key)) return 'exists';
      held.set(key, body);
      return 'created';
    },
    read: async (key) => held.get(key),
  };
  return { b, puts };
}

describe('publishVersions', () => {
  it('creates every version the bucket lacks, once, and leaves the ones it lists alone', async () => {
    const held = new Map(keys.slice(0, 5).map((k) => [k, bytes(k)]));
    const { b, puts } = bucket(held);
    const result = await publishVersions({ files: files(), bucket: b });
    expect(result).toEqual({ created: keys.slice(5), present: 5 });
    expect(puts.sort()).toEqual(keys.slice(5));
    expect(await publishVersions({ files: files(), bucket: bucket(held).b })).toEqual({ created: [], present: keys.length });
  });

  it('accepts a key another writer created (412) only when it holds that version', async () => {
    const key = keys[0]!;
    const same = new Map<string, Uint8Array>();
    const raced = bucket(same, new Set(), (k) => k === key && same.set(k, bytes(k)));
    expect(await publishVersions({ files: files(), bucket: raced.b })).toMatchObject({ present: 1 });

    const other = new Map<string, Uint8Array>();
    const tampered = bucket(other, new Set(), (k) => k === key && other.set(k, bytes(keys[1]!)));
    await expect(publishVersions({ files: files(), bucket: tampered.b })).rejects.toThrow(/not the version it names/);
  });

  it('refuses to publish bytes that are not the version their key names, and keys that are not content addresses', async () => {
    const key = keys[2]!;
    await expect(publishVersions({ files: files({ [key]: bytes(keys[3]!) }), bucket: bucket(new Map()).b })).rejects.toThrow(
      /not the version their key names/,
    );
    const odd: VersionFiles = { keys: async () => ['latest.json'], read: async () => new Uint8Array() };
    await expect(publishVersions({ files: odd, bucket: bucket(new Map()).b })).rejects.toThrow(/not content-addressed/);
  });

  it('reads a key as its digest, and a record as its version only if its pack hashes to it', () => {
    const key = keys[0]!;
    const digest = digestOfKey(key)!;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(holdsVersion(bytes(key), digest)).toBe(true);
    expect(holdsVersion(bytes(keys[1]!), digest)).toBe(false);
    const record = JSON.parse(Buffer.from(bytes(key)).toString('utf8'));
    record.pack['SKILL.md'] += ' ';
    expect(holdsVersion(Buffer.from(JSON.stringify(record)), digest)).toBe(false);
    expect(digestOfKey('sha256/../x.json')).toBeUndefined();
  });
});

describe('the publisher as CloudFormation runs it', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  const event = (url: string, RequestType: 'Create' | 'Update' | 'Delete') => ({
    RequestType,
    ResponseURL: url,
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/Test/1',
    RequestId: 'req-1',
    LogicalResourceId: 'PackVersionsPublished',
    ResourceType: 'Custom::PackVersions',
    PhysicalResourceId: 'pack-versions-publisher',
    ResourceProperties: {},
  });

  /** A response URL on loopback that records what is PUT to it. */
  async function responseUrl(): Promise<{ url: string; answers: { method: string; body: Record<string, unknown> }[] }> {
    const answers: { method: string; body: Record<string, unknown> }[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        answers.push({ method: req.method ?? '', body: JSON.parse(body) as Record<string, unknown> });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/answer?sig=x`, answers };
  }

  it('answers a Delete with SUCCESS and deletes nothing (no bucket is even named)', async () => {
    const { url, answers } = await responseUrl();
    expect(await handler(event(url, 'Delete'))).toEqual({ status: 'SUCCESS' });
    expect(answers).toEqual([
      {
        method: 'PUT',
        body: expect.objectContaining({ Status: 'SUCCESS', PhysicalResourceId: 'pack-versions-publisher', RequestId: 'req-1' }),
      },
    ]);
  });

  it('answers FAILED with the reason when it cannot publish, so the deploy fails rather than waits', async () => {
    const { url, answers } = await responseUrl();
    // No PACK_VERSIONS_BUCKET here: the wiring refuses.
    expect(await handler(event(url, 'Update'))).toEqual({ status: 'FAILED' });
    expect(answers[0]!.body).toMatchObject({ Status: 'FAILED', Reason: expect.stringContaining('PACK_VERSIONS_BUCKET') });
  });

  it('answers nothing to an event that is not a custom resource request', async () => {
    expect(await handler({ RequestType: 'smoke' } as never)).toEqual({ error: 'not a CloudFormation custom resource request' });
    expect(isCustomResourceEvent({ ...event('file:///etc/passwd', 'Create') })).toBe(false);
    const long = JSON.parse(
      customResourceAnswer(event('https://x', 'Create'), { ok: false, physicalResourceId: 'p', reason: 'x'.repeat(5000) }),
    );
    expect(long.Reason.length).toBe(1000);
  });
});
