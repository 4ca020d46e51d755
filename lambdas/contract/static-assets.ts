/**
 * How the public static tree is served: the same rules for the S3 + CloudFront origin
 * (BucketDeployment metadata) and the local static server. No AWS imports here.
 */

export interface CacheRule {
  /** Glob as BucketDeployment's include understands it. */
  include: string;
  test: (path: string) => boolean;
  cacheControl: string;
  /**
   * Files a deploy must not delete when a new build no longer has them: a page cached for a minute
   * (or open in a tab) still names the hashed assets of the build before.
   */
  keepOld?: boolean;
}

/**
 * Hashed assets (/assets/*) never change: a year, immutable. catalog.json changes with every
 * catalog build: short max-age and revalidation by ETag. Skill pages and files change only with
 * their skill: five minutes. Everything else (the home and proof pages): one minute.
 */
export const CACHE_RULES: readonly CacheRule[] = [
  // The storefront's scripts and stylesheet are named by their content hash: a new build is a new name.
  { include: 'assets/*', test: (p) => p.startsWith('assets/'), cacheControl: 'public, max-age=31536000, immutable', keepOld: true },
  { include: 'catalog.json', test: (p) => p === 'catalog.json', cacheControl: 'public, max-age=60, must-revalidate' },
  { include: 'skills/*', test: (p) => p.startsWith('skills/'), cacheControl: 'public, max-age=300' },
  { include: '*', test: () => true, cacheControl: 'public, max-age=60' },
];

export const cacheControlFor = (relativePath: string): string =>
  (CACHE_RULES.find((r) => r.test(relativePath)) ?? CACHE_RULES[CACHE_RULES.length - 1]!).cacheControl;

const TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export const contentTypeFor = (relativePath: string): string => {
  const dot = relativePath.lastIndexOf('.');
  return (dot >= 0 && TYPES[relativePath.slice(dot)]) || 'application/octet-stream';
};

/**
 * Directory URLs map to their index.html, as the CloudFront viewer-request function does: `/dir/`
 * and also `/dir` when its last segment has no extension (Stripe returns buyers to
 * `/checkout/success?session_id=…`). The function's code is this rule, in CloudFront's JavaScript.
 */
export const indexRewrite = (urlPath: string): string =>
  urlPath.endsWith('/') ? `${urlPath}index.html` : /\/[^/.]+$/.test(urlPath) ? `${urlPath}/index.html` : urlPath;

/** `indexRewrite` as a CloudFront Function (viewer request); test/unit checks the two agree. */
export const INDEX_REWRITE_FUNCTION =
  "function handler(event){var r=event.request;if(r.uri.endsWith('/')){r.uri+='index.html';}else if(/\\/[^/.]+$/.test(r.uri)){r.uri+='/index.html';}return r;}";
