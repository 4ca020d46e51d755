/**
 * The security scan of every pack, run by the catalog build: secretlint with its recommended
 * preset for secrets (the well-kept scanner for that, rather than our own regexes), and the
 * skill-pack rules (security-rules.ts) for what a pack an agent will follow can carry. Writes
 * the report the insights domain serves at /api/security, and SARIF 2.1.0 for tools.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecurityFinding, SecurityReport, SecuritySeverity, SkillSecurity } from '../lambdas/contract/security-report';
import { SKILL_RULES, SKILL_RULES_VERSION } from './security-rules';

const SEVERITIES: readonly SecuritySeverity[] = ['critical', 'high', 'medium', 'low', 'info'];
/** A pack is unsafe with any finding at or above this. */
const UNSAFE: ReadonlySet<SecuritySeverity> = new Set(['critical', 'high']);
const SNIPPET_MAX = 160;

/** The installed version of a package, read from its own package.json (never written down here). */
function versionOf(pkg: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(pkg));
  for (;;) {
    try {
      const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (meta.name === pkg && meta.version) return meta.version;
    } catch {
      // not here: go up
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the version of ${pkg}`);
    dir = up;
  }
}

/** Invisible code points (zero-width, bidi controls) that a snippet shows as escapes. */
const INVISIBLE = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
/** Control and invisible characters shown as escapes, so a snippet shows what is hidden. */
const visible = (s: string): string =>
  [...s]
    .map((c) => {
      const cp = c.codePointAt(0)!;
      return (cp < 0x20 && cp !== 0x09) || INVISIBLE.has(cp) ? `\\u${cp.toString(16).padStart(4, '0')}` : c;
    })
    .join('');
const clip = (s: string): string => (s.length > SNIPPET_MAX ? `${s.slice(0, SNIPPET_MAX - 1)}…` : s);

async function secretFindings(file: string, content: string): Promise<SecurityFinding[]> {
  const result = await lintSource({
    source: { content, filePath: file, contentType: 'text' },
    options: {
      config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] },
      maskSecrets: true,
      noPhysicFilePath: true,
    },
  });
  const lines = content.split('\n');
  return result.messages.map((m) => {
    const line = lines[m.loc.start.line - 1] ?? '';
    // The secret's own characters never reach the report: the matched range is masked.
    const lineStart = content.lastIndexOf('\n', m.range[0] - 1) + 1;
    const from = m.range[0] - lineStart;
    const to = Math.min(line.length, m.range[1] - lineStart);
    const masked = `${line.slice(0, from)}${'*'.repeat(Math.max(4, Math.min(12, to - from)))}${line.slice(to)}`;
    return {
      rule_id: m.ruleId,
      category: 'hardcoded_secrets',
      severity: 'critical' as const,
      file,
      line: m.loc.start.line,
      column: m.loc.start.column + 1,
      snippet: clip(visible(masked.trim())),
      remediation: `Remove the secret from the pack and revoke it where it was issued (${m.message.replace(/\s+/g, ' ').slice(0, 120)}).`,
      scanner: 'secretlint' as const,
    };
  });
}

/**
 * secretlint's findings per file, kept between builds: they depend only on the scanner's
 * versions, our call of it (secretFindings' source), the file's name and its content. Without it every `npm start` paid secretlint
 * again, ~1 s of it after the scan returned (secretlint's profiler matches each performance mark
 * against every earlier one, quadratic in the files scanned), and kept its marks in memory.
 * Under node_modules/.cache, so a fresh clone scans everything once.
 */
const SECRETLINT_CACHE = fileURLToPath(new URL('../node_modules/.cache/skill-market/secretlint.json', import.meta.url));

interface SecretlintCache {
  scanner: string;
  findings: Record<string, SecurityFinding[]>;
}

function cachedSecretFindings(): {
  find: (file: string, content: string) => Promise<SecurityFinding[]>;
  save: () => void;
} {
  // The scanner's versions, and how we call it and shape its findings (a change to secretFindings empties the cache).
  const scanner = [
    versionOf('@secretlint/core'),
    versionOf('@secretlint/secretlint-rule-preset-recommend'),
    createHash('sha256').update(secretFindings.toString()).digest('base64url'),
  ].join('|');
  let before: SecretlintCache['findings'] = {};
  try {
    const cache = JSON.parse(readFileSync(SECRETLINT_CACHE, 'utf8')) as SecretlintCache;
    if (cache.scanner === scanner) before = cache.findings;
  } catch {
    // No cache yet (or unreadable): scan everything.
  }
  const now: SecretlintCache['findings'] = {};
  return {
    async find(file, content) {
      const key = createHash('sha256').update(file).update('\0').update(content).digest('base64url');
      now[key] = before[key] ?? (await secretFindings(file, content));
      return now[key];
    },
    // Only what this build used is kept; written whole, then renamed, as concurrent builds may race.
    save() {
      try {
        mkdirSync(dirname(SECRETLINT_CACHE), { recursive: true });
        const tmp = `${SECRETLINT_CACHE}.${randomBytes(4).toString('hex')}`;
        writeFileSync(tmp, JSON.stringify({ scanner, findings: now } satisfies SecretlintCache));
        renameSync(tmp, SECRETLINT_CACHE);
      } catch {
        // A cache that cannot be written costs the next build a scan, nothing else.
      }
    },
  };
}

function ruleFindings(file: string, content: string): SecurityFinding[] {
  const out: SecurityFinding[] = [];
  content.split('\n').forEach((text, i) => {
    for (const rule of SKILL_RULES) {
      const m = rule.pattern.exec(text);
      if (!m) continue;
      out.push({
        rule_id: rule.id,
        category: rule.category,
        severity: rule.severity,
        file,
        line: i + 1,
        column: m.index + 1,
        snippet: clip(visible(text.trim())),
        remediation: rule.remediation,
        scanner: 'skill-market-rules',
      });
    }
  });
  return out;
}

/** Scans one pack's files. */
async function scanPack(
  pack: { skill_id: string; seal: string; files: Readonly<Record<string, string>> },
  secrets: (file: string, content: string) => Promise<SecurityFinding[]>,
): Promise<SkillSecurity> {
  const findings: SecurityFinding[] = [];
  for (const [file, content] of Object.entries(pack.files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    findings.push(...(await secrets(file, content)), ...ruleFindings(file, content));
  }
  findings.sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column || (a.rule_id < b.rule_id ? -1 : 1),
  );
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length])) as Record<
    SecuritySeverity,
    number
  >;
  return {
    skill_id: pack.skill_id,
    seal: pack.seal,
    is_safe: !findings.some((f) => UNSAFE.has(f.severity)),
    max_severity: SEVERITIES.find((s) => counts[s] > 0) ?? null,
    counts,
    files_scanned: Object.keys(pack.files).length,
    findings,
  };
}

export const SECURITY_REPORT_SCHEMA = 'skill-market-security-scan/1';

/** Scans every pack; the report is deterministic (no time in it), sorted by skill id. */
export async function scanPacks(
  packs: readonly { skill_id: string; seal: string; files: Readonly<Record<string, string>> }[],
): Promise<SecurityReport> {
  const skills: Record<string, SkillSecurity> = {};
  const secrets = cachedSecretFindings();
  for (const p of [...packs].sort((a, b) => (a.skill_id < b.skill_id ? -1 : 1))) skills[p.skill_id] = await scanPack(p, secrets.find);
  secrets.save();
  const all = Object.values(skills);
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, all.reduce((n, k) => n + k.counts[s], 0)])) as Record<
    SecuritySeverity,
    number
  >;
  return {
    schema: SECURITY_REPORT_SCHEMA,
    scanners: [
      {
        name: 'secretlint',
        version: versionOf('@secretlint/core'),
        rules: `@secretlint/secretlint-rule-preset-recommend@${versionOf('@secretlint/secretlint-rule-preset-recommend')}`,
      },
      { name: 'skill-market-rules', version: SKILL_RULES_VERSION, rules: SKILL_RULES.map((r) => r.id).join(', ') },
    ],
    skills,
    totals: {
      skills: all.length,
      safe: all.filter((k) => k.is_safe).length,
      findings: all.reduce((n, k) => n + k.findings.length, 0),
      by_severity: bySeverity,
    },
  };
}

const LEVEL: Record<SecuritySeverity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

/** The report as SARIF 2.1.0: one run per scanner; locations are pack paths `packs/<skill>/<file>`. */
export function securitySarif(report: SecurityReport): object {
  const findings = Object.values(report.skills).flatMap((s) => s.findings.map((f) => ({ ...f, skill: s })));
  const run = (name: 'secretlint' | 'skill-market-rules', informationUri?: string) => {
    const scanner = report.scanners.find((s) => s.name === name)!;
    const mine = findings.filter((f) => f.scanner === name);
    const rules =
      name === 'skill-market-rules'
        ? SKILL_RULES.map((r) => ({
            id: r.id,
            shortDescription: { text: r.description },
            help: { text: r.remediation },
            properties: { category: r.category, severity: r.severity },
          }))
        : [...new Set(mine.map((f) => f.rule_id))].sort().map((id) => ({ id, shortDescription: { text: `secretlint rule ${id}` } }));
    return {
      tool: { driver: { name, version: scanner.version, ...(informationUri ? { informationUri } : {}), rules } },
      results: mine.map((f) => ({
        ruleId: f.rule_id,
        level: LEVEL[f.severity],
        message: { text: `${f.category}: ${f.remediation}` },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: `packs/${f.skill.skill_id}/${f.file}` },
              region: { startLine: f.line, startColumn: f.column, snippet: { text: f.snippet } },
            },
          },
        ],
        properties: { severity: f.severity, category: f.category, skill_id: f.skill.skill_id, seal: f.skill.seal },
      })),
    };
  };
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [run('secretlint', 'https://github.com/secretlint/secretlint'), run('skill-market-rules')],
  };
}
