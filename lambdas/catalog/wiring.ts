/** Builds the catalog domain's ports from the environment: the only file of the domain that names adapters. */
import { randomBytes } from 'node:crypto';
import { dynamoClient } from '../platform/adapters/dynamo-client';
import { loadCatalogFiles } from './adapters/catalog-files';
import { dynamoIntentStore } from './adapters/dynamo-intent-store';
import { s3VersionBucket } from './adapters/s3-version-bucket';
import { versionFiles } from './adapters/version-files';
import { INFRA_ENV } from '../contract/env';
import type { Catalog, CatalogPorts, VersionsPublisherPorts } from './ports';

/** The built catalog this bundle carries, loaded once per process; other functions reach it through the catalog's face. */
export function catalogFromEnv(): Catalog {
  return loadCatalogFiles();
}

export function catalogPortsFromEnv(): CatalogPorts {
  const now = () => new Date();
  return {
    catalog: catalogFromEnv(),
    intents: dynamoIntentStore(dynamoClient(), now),
    now,
    newIntentId: () => `int_${randomBytes(10).toString('hex')}`,
  };
}

/** The versions publisher's ports: the versions its bundle carries, and the bucket the stack names (PACK_VERSIONS_BUCKET). */
export function versionsPublisherPortsFromEnv(env: NodeJS.ProcessEnv = process.env): VersionsPublisherPorts {
  const bucket = env[INFRA_ENV.packVersionsBucket];
  if (!bucket) throw new Error(`${INFRA_ENV.packVersionsBucket} is not set: the publisher has no versions bucket to write to`);
  return { files: versionFiles(), bucket: s3VersionBucket(bucket) };
}
