import { fileURLToPath } from 'node:url';
import { DATA_ENV } from './env';

/**
 * Where the built catalog data lives. In a Lambda the bundle carries a copy and the
 * DomainFunction construct sets these variables; locally they default to dist/.
 */
export const CATALOG_DATA_DIR = process.env[DATA_ENV.catalog] ?? fileURLToPath(new URL('../../dist/catalog', import.meta.url));
/** Sealed pack texts: copied only into the bundles that unlock (see each domain's infra manifest). */
export const SEALED_DATA_DIR = process.env[DATA_ENV.sealed] ?? fileURLToPath(new URL('../../dist/sealed', import.meta.url));
