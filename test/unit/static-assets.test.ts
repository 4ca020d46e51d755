import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { cacheControlFor, INDEX_REWRITE_FUNCTION, indexRewrite } from '../../lambdas/contract/static-assets';

/** The CloudFront Function's code, run as CloudFront would: a viewer-request event in, the request out. */
const cloudFront = (uri: string): string =>
  (runInNewContext(`${INDEX_REWRITE_FUNCTION}; handler({ request: { uri: ${JSON.stringify(uri)} } })`) as { uri: string }).uri;

describe('directory URLs', () => {
  it.each([
    ['/', '/index.html'],
    ['/skills/csv-cleaner/', '/skills/csv-cleaner/index.html'],
    ['/skills/csv-cleaner', '/skills/csv-cleaner/index.html'],
    ['/proof/', '/proof/index.html'],
    ['/assets/home-ABCD1234.js', '/assets/home-ABCD1234.js'],
    ['/recover/', '/recover/index.html'],
    ['/checkout/success', '/checkout/success/index.html'],
    ['/checkout/cancel/', '/checkout/cancel/index.html'],
    ['/catalog.json', '/catalog.json'],
    ['/skills/csv-cleaner/outline.json', '/skills/csv-cleaner/outline.json'],
    ['/llms.txt', '/llms.txt'],
  ])('%s is served from %s, the same at the edge and locally', (uri, file) => {
    expect(indexRewrite(uri)).toBe(file);
    expect(cloudFront(uri)).toBe(file);
  });
});

describe('cache rules', () => {
  it.each([
    ['assets/home-ABCD1234.js', 'public, max-age=31536000, immutable'],
    ['assets/site-ABCD1234.css', 'public, max-age=31536000, immutable'],
    ['skills/csv-cleaner/index.html', 'public, max-age=300'],
    ['skills/csv-cleaner/sample.md', 'public, max-age=300'],
    ['catalog.json', 'public, max-age=60, must-revalidate'],
    ['index.html', 'public, max-age=60'],
    ['proof/index.html', 'public, max-age=60'],
  ])('%s: %s', (path, rule) => {
    expect(cacheControlFor(path)).toBe(rule);
  });
});
