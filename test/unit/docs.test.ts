import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../lambdas/contract/settings';

describe('README', () => {
  const readme = readFileSync('README.md', 'utf8');
  it('documents every deployment setting by context key and env var', () => {
    for (const s of Object.values(SETTINGS)) {
      expect(readme, s.context).toContain(`\`${s.context}\``);
      expect(readme, s.env).toContain(`\`${s.env}\``);
    }
  });
  it('gives the two commands, and .ci/run runs the same test command', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    expect(readFileSync('.ci/run', 'utf8')).toMatch(/^npm ci && npm test$/m);
  });
});

describe('docs/ARCHITECTURE.md', () => {
  const doc = readFileSync('docs/ARCHITECTURE.md', 'utf8');
  it('names only files and folders that exist', () => {
    const paths = [...doc.matchAll(/`((?:lambdas|lib|local|catalog|bench|test|bin)\/[A-Za-z0-9_./-]*)`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) expect(existsSync(path.replace(/\/$/, '')), path).toBe(true);
  });
  it('has the "where things go" page', () => {
    expect(doc).toMatch(/^## Where things go$/m);
  });
});
