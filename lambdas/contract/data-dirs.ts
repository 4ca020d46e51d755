import { fileURLToPath } from 'node:url';

/** The catalog build's output: <repo>/dist (this file is lambdas/contract/data-dirs.ts). */
export const DIST_DIR = fileURLToPath(new URL('../../dist', import.meta.url));

/** The public tree the catalog build writes; the only directory the CloudFront origin serves. */
export const PUBLIC_DIR = `${DIST_DIR}/public`;

/** The built catalog data the build writes; a Lambda reads its bundle's copy (platform/data-dirs.ts). */
export const CATALOG_DIR = `${DIST_DIR}/catalog`;
/** Sealed pack texts the build writes: copied only into the bundles that unlock (each domain's infra manifest). */
export const SEALED_DIR = `${DIST_DIR}/sealed`;
/** Every published version of every pack, content-addressed (`sha256/<digest>.json`): the S3 version store's contents. */
export const VERSIONS_DIST_DIR = `${DIST_DIR}/versions`;
