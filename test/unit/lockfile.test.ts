import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { missingPlatformEntries } from '../../local/lockfile-platforms';

describe('package-lock.json', () => {
  it('holds every anvil platform package, so npm ci accepts it (fix: npx tsx local/lockfile-platforms.ts)', () => {
    expect(missingPlatformEntries(JSON.parse(readFileSync('package-lock.json', 'utf8')))).toEqual([]);
  });
});
