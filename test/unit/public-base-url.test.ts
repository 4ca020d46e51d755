import { describe, expect, it } from 'vitest';
import { resolvePublicBaseUrl } from '../../lambdas/platform/public-base-url';

describe('resolvePublicBaseUrl', () => {
  const reader = (value: string | undefined) => async (name: string) => (name === '/p' ? value : undefined);

  it('prefers PUBLIC_BASE_URL, then the SSM parameter, else nothing', async () => {
    expect(
      await resolvePublicBaseUrl(
        { PUBLIC_BASE_URL: 'https://shop.example/', PUBLIC_BASE_URL_PARAMETER: '/p' },
        reader('https://d1.cloudfront.net'),
      ),
    ).toBe('https://shop.example');
    expect(await resolvePublicBaseUrl({ PUBLIC_BASE_URL_PARAMETER: '/p' }, reader('https://d1.cloudfront.net'))).toBe(
      'https://d1.cloudfront.net',
    );
    expect(await resolvePublicBaseUrl({}, reader('https://x'))).toBeUndefined();
  });

  it('refuses a parameter or setting that is not an http(s) URL', async () => {
    await expect(resolvePublicBaseUrl({ PUBLIC_BASE_URL_PARAMETER: '/p' }, reader('d1.cloudfront.net'))).rejects.toThrow(
      /no http\(s\) URL/,
    );
    await expect(resolvePublicBaseUrl({ PUBLIC_BASE_URL: 'ftp://x' }, reader(undefined))).rejects.toThrow(/not an http/);
  });
});
