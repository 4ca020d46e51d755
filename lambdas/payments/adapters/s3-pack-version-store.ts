import { GetObjectCommand } from '@aws-sdk/client-s3';
import { parseVersionRecord, VERSION_DIGEST, versionObjectKey } from '../../contract/pack-versions';
import { isAccessDenied, isNoSuchKey, s3Client } from '../../platform/adapters/s3-client';
import type { PackVersionStore } from '../ports';

/**
 * The version store in AWS: the versions bucket (write-once, Object Lock; lib/constructs/versions-bucket.ts),
 * read by key `sha256/<digest>.json`. As with the files locally, a record whose pack does not hash to
 * the digest asked for is not returned: the bytes a buyer gets are the bytes their receipt names, or none.
 */
export function s3PackVersionStore(bucket: string): PackVersionStore {
  return {
    async get(digest) {
      if (!VERSION_DIGEST.test(digest)) return undefined;
      let text: string;
      try {
        const res = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: versionObjectKey(digest) }));
        text = (await res.Body?.transformToString('utf8')) ?? '';
      } catch (e) {
        // The functions may only GetObject (no s3:ListBucket), so S3 answers a key it lacks with 403, not 404.
        if (isNoSuchKey(e) || isAccessDenied(e)) return undefined;
        throw e;
      }
      return parseVersionRecord(text, digest);
    },
  };
}
