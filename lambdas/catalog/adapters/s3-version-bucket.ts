import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { isNoSuchKey, isPreconditionFailed, s3Client } from '../../platform/adapters/s3-client';
import type { VersionBucket } from '../ports';

/**
 * The versions bucket for its publisher. Every write is a conditional create (If-None-Match: *),
 * which the bucket policy demands of every PutObject, with a SHA-256 checksum, which Object Lock's
 * default retention demands (Content-MD5 or a checksum on every upload that gets a retention period).
 */
export function s3VersionBucket(bucket: string): VersionBucket {
  const s3 = s3Client();
  return {
    async keys() {
      const keys = new Set<string>();
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'sha256/', ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key) keys.add(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys;
    },
    async putNew(key, bytes) {
      try {
        await s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: bytes,
            ContentType: 'application/json',
            IfNoneMatch: '*',
            ChecksumAlgorithm: 'SHA256',
          }),
        );
        return 'created';
      } catch (e) {
        if (isPreconditionFailed(e)) return 'exists';
        throw e;
      }
    },
    async read(key) {
      try {
        const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return res.Body ? await res.Body.transformToByteArray() : undefined;
      } catch (e) {
        if (isNoSuchKey(e)) return undefined;
        throw e;
      }
    },
  };
}
