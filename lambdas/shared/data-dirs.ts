import { fileURLToPath } from 'node:url';

/**
 * Where the built catalog data lives. In a Lambda the bundle carries a copy and the
 * DomainFunction construct sets these variables; locally they default to dist/.
 */
export const CATALOG_DATA_DIR = process.env['CATALOG_DATA_DIR'] ?? fileURLToPath(new URL('../../dist/catalog', import.meta.url));
/** Sealed pack texts: copied only into the payments Lambda's bundle. */
export const SEALED_DATA_DIR = process.env['SEALED_DATA_DIR'] ?? fileURLToPath(new URL('../../dist/sealed', import.meta.url));
