import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordSite, siteIsCurrent } from '../../local/site-stamps';

describe('the catalog build is skipped only when nothing it reads or writes changed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'site-stamps-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const input = join(dir, 'catalog');
  const output = join(dir, 'dist');
  const paths = [input, output];
  const record = join(dir, 'site.json');
  mkdirSync(join(input, 'skills'), { recursive: true });
  mkdirSync(join(output, 'skills', 'a'), { recursive: true });
  writeFileSync(join(input, 'skills', 'data.json'), '[]');
  writeFileSync(join(output, 'skills', 'a', 'sample.md'), '# a');
  const rebuilt = (): void => recordSite(record, 'build-1', paths);

  it('is current after a build, for the same code only', () => {
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(false); // never built
    rebuilt();
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(true);
    expect(siteIsCurrent(record, 'build-2', paths)).toBe(false);
  });

  it('is not current once an input is edited or added', () => {
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(input, 'skills', 'data.json'), later, later);
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(false);
    rebuilt();
    writeFileSync(join(input, 'skills', 'more.json'), '[]');
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(false);
    rebuilt();
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(true);
  });

  it('is not current once an output is deleted, edited or added', () => {
    unlinkSync(join(output, 'skills', 'a', 'sample.md'));
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(false);
    writeFileSync(join(output, 'skills', 'a', 'sample.md'), '# a');
    rebuilt();
    writeFileSync(join(output, 'skills', 'a', 'sample.md'), '# a, edited');
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(false);
    rebuilt();
    writeFileSync(join(output, 'stray.html'), '<p>');
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(false);
    rmSync(output, { recursive: true });
    rebuilt();
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(true); // recorded as missing
    mkdirSync(output);
    expect(siteIsCurrent(record, 'build-1', paths)).toBe(false);
  });
});
