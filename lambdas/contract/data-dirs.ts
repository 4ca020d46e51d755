import { fileURLToPath } from 'node:url';
import { DATA_ENV } from './env';

/** The catalog build's output: <repo>/dist (this file is lambdas/contract/data-dirs.ts). */
export const DIST_DIR = fileURLToPath(new URL('../../dist', import.meta.url));

/** The public tree the catalog build writes; the only directory the CloudFront origin serves. */
export const PUBLIC_DIR = `${DIST_DIR}/public`;

/**
 * Where the built catalog data lives. In a Lambda the bundle carries a copy and the
 * DomainFunction construct sets these variables; locally they default to dist/.
 */
export const CATALOG_DATA_DIR = process.env[DATA_ENV.catalog] ?? `${DIST_DIR}/catalog`;
/** Sealed pack texts: copied only into the bundles that unlock (see each domain's infra manifest). */
export const SEALED_DATA_DIR = process.env[DATA_ENV.sealed] ?? `${DIST_DIR}/sealed`;
