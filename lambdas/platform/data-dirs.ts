import { CATALOG_DIR, SEALED_DIR, VERSIONS_DIST_DIR } from '../contract/data-dirs';
import { DATA_ENV } from '../contract/env';

/**
 * Where a function reads the built data: in a Lambda the bundle carries a copy and the
 * DomainFunction construct sets the variables; locally they are unset and the build's dist/ is read.
 */
export const catalogDataDir = (env: NodeJS.ProcessEnv = process.env): string => env[DATA_ENV.catalog] ?? CATALOG_DIR;
export const sealedDataDir = (env: NodeJS.ProcessEnv = process.env): string => env[DATA_ENV.sealed] ?? SEALED_DIR;
/**
 * The content-addressed version store as files (dist/versions): what the local run reads, and what
 * the versions publisher's bundle carries to copy into the versions bucket (in AWS the serving
 * functions read the bucket instead).
 */
export const versionsDataDir = (env: NodeJS.ProcessEnv = process.env): string => env[DATA_ENV.versions] ?? VERSIONS_DIST_DIR;
