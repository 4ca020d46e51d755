import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { INDEX_REWRITE_FUNCTION, indexRewrite } from '../../lambdas/contract/static-assets';

/** The CloudFront Function's code, run as CloudFront would: a viewer-request event in, the request out. */
const cloudFront = (uri: string): string =>
  (runInNewContext(`${INDEX_REWRITE_FUNCTION}; handler({ request: { uri: ${JSON.stringify(uri)} } })`) as { uri: string }).uri;

describe('directory URLs', () => {
  it.each([
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
