/**
 * The eval suite the catalog build runs over every pack: structural checks a buyer would
 * otherwise find broken after paying. Each check is a small pure function over what the build
 * produced (SKILL.md and the pack files, the free sample, the outline, the seal); its weight is
 * its share of the score, score = round(100 × passed weight / total weight). The report names
 * the suite version (bump it whenever a check or weight changes) and every failing check.
 */
import type { EvalCheckResult, EvalReport, SkillEval } from '../lambdas/contract/eval-report';
import { SAMPLE_END_MARKER, skillBody } from './render';
import type { SkillRecord } from './schema';

export const EVAL_SUITE = 'skill-market-pack-eval';
export const EVAL_SUITE_VERSION = '1.1.0';

export interface EvalInput {
  record: SkillRecord;
  /** Path → text: SKILL.md and the supporting files. */
  pack: Readonly<Record<string, string>>;
  /** The public sample.md. */
  sample: string;
  /** The parsed public outline.json. */
  outline: unknown;
  seal: string;
}

interface Check {
  id: string;
  title: string;
  what_it_means: string;
  weight: number;
  /** Why it fails, or undefined when it passes. */
  run: (input: EvalInput, md: ParsedSkill) => string | undefined;
}

/** SKILL.md split into its `## ` sections (title → lines), in order. */
interface ParsedSkill {
  sections: { title: string; lines: string[] }[];
  section(title: string): string[] | undefined;
}

function parse(md: string): ParsedSkill {
  const sections: ParsedSkill['sections'] = [];
  for (const line of md.split('\n')) {
    const h = /^## (.+)$/.exec(line);
    if (h) sections.push({ title: h[1]!.trim(), lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  return { sections, section: (title) => sections.find((s) => s.title === title)?.lines };
}

const REQUIRED_SECTIONS = ['When to use', 'Outcome', 'Before you start', 'Steps', 'Checks', 'Pitfalls', 'Worked example'];
const MIN_CHECK_LENGTH = 20;
/** Wording nobody can check: judgements and hedges. */
const VAGUE =
  /\b(?:works? (?:well|fine|correctly|properly)|properly|appropriate(?:ly)?|as needed|reasonabl[ey]|nice|robust|adequate(?:ly)?|user-friendly|high[- ]quality|sufficient(?:ly)?|etc|easy to|intuitive|seamless(?:ly)?|optimal(?:ly)?|efficient(?:ly)?|best practices?|better|improved|good|great|should|try to|consider|if possible|ideally|best effort|aims? to|hopefully|may|might|could)\b/i;
/** A measure or an artefact a reader can look at: a number, or code (a command, a file, a value). */
const ANCHORED = /\d|`[^`]+`/;
/** Code and quoted text are what is checked, not how the check is worded: they are left out before looking for vague words. */
const prose = (check: string): string =>
  check
    .replace(/`[^`]*`/g, ' ')
    .replace(/"[^"]*"/g, ' ')
    .replace(/(^|\s)'[^']*'/g, ' ');
/** Whether one acceptance check is a verifiable statement (see the check's `what_it_means`). */
export const isVerifiable = (check: string): boolean =>
  check.length >= MIN_CHECK_LENGTH && !(VAGUE.test(prose(check)) && !ANCHORED.test(check));
/** Bounds from the catalog as first built (SKILL.md 3.3–6.5 KB, files ≤ 4 KB, 5–9 steps), with room on both sides. */
const SIZE = { skillMin: 1_500, skillMax: 40_000, fileMax: 64 * 1024, stepsMin: 3, stepsMax: 12 };

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

export const EVAL_CHECKS: readonly Check[] = [
  {
    id: 'sections.required',
    title: 'Required sections, in order',
    what_it_means:
      'SKILL.md has the sections When to use, Outcome, Before you start, Steps, Checks, Pitfalls and Worked example in that order, and Files in this pack exactly when the pack has supporting files.',
    weight: 3,
    run: (input, md) => {
      const hasFiles = Object.keys(input.pack).some((p) => p !== 'SKILL.md');
      const want = [...REQUIRED_SECTIONS, ...(hasFiles ? ['Files in this pack'] : [])];
      const got = md.sections.map((s) => s.title).filter((t) => want.includes(t) || t === 'Files in this pack');
      if (got.join('|') === want.join('|')) return undefined;
      const missing = want.filter((t) => !got.includes(t));
      return missing.length > 0 ? `missing: ${missing.join(', ')}` : `out of order or extra: ${got.join(' → ')}`;
    },
  },
  {
    id: 'checks.verifiable',
    title: 'Acceptance checks are verifiable',
    what_it_means: `Every item under Checks is a statement someone else can check: at least ${MIN_CHECK_LENGTH} characters, and no judgement or hedge (works well, properly, as needed, robust, better, should, may, …) unless the item also gives a number or code to check it by. Words inside code or quotes do not count.`,
    weight: 2,
    run: (_input, md) => {
      const items = (md.section('Checks') ?? []).filter((l) => /^- \[ \] /.test(l)).map((l) => l.slice(6).trim());
      if (items.length === 0) return 'no check items';
      const bad = items.filter((c) => !isVerifiable(c));
      return bad.length === 0 ? undefined : `not verifiable: ${bad.map((c) => `"${c.slice(0, 60)}"`).join('; ')}`;
    },
  },
  {
    id: 'sample.verbatim',
    title: 'The free sample is a verbatim excerpt',
    what_it_means:
      'The public sample.md, up to its end-of-excerpt marker, is exactly the beginning of SKILL.md after its frontmatter: what a buyer evaluates is what they buy.',
    weight: 3,
    run: (input) => {
      const cut = input.sample.indexOf(SAMPLE_END_MARKER);
      if (cut < 0) return 'the sample has no end-of-excerpt marker';
      const excerpt = input.sample.slice(0, cut);
      const skill = skillBody(input.pack['SKILL.md'] ?? '');
      if (excerpt.length === 0) return 'the excerpt is empty';
      if (skill.startsWith(excerpt)) return undefined;
      let i = 0;
      while (i < excerpt.length && excerpt[i] === skill[i]) i++;
      return `differs from SKILL.md at character ${i}: "${excerpt.slice(i, i + 40)}"`;
    },
  },
  {
    id: 'outline.matches',
    title: 'The outline matches the pack',
    what_it_means:
      "The public outline's file list (paths and byte sizes) and seal are the pack's, and its step titles and check and pitfall counts are SKILL.md's.",
    weight: 2,
    run: (input, md) => {
      const o = input.outline as {
        pack?: { files?: { path: string; bytes: number }[]; seal?: string };
        sections?: { title: string; items?: unknown }[];
      };
      const problems: string[] = [];
      const files = Object.entries(input.pack)
        .map(([path, text]) => `${path}:${utf8Bytes(text)}`)
        .sort();
      const listed = (o.pack?.files ?? []).map((f) => `${f.path}:${f.bytes}`).sort();
      if (files.join('|') !== listed.join('|')) problems.push(`files ${listed.join(', ')} ≠ pack ${files.join(', ')}`);
      if (o.pack?.seal !== input.seal) problems.push('seal differs');
      const item = (title: string) => o.sections?.find((s) => s.title === title)?.items;
      const stepTitles = (md.section('Steps') ?? [])
        .map((l) => /^### \d+\. (.+)$/.exec(l)?.[1])
        .filter((t): t is string => t !== undefined);
      if (JSON.stringify(item('Steps')) !== JSON.stringify(stepTitles)) problems.push('step titles differ');
      const count = (title: string, re: RegExp) => (md.section(title) ?? []).filter((l) => re.test(l)).length;
      if (item('Checks') !== count('Checks', /^- \[ \] /)) problems.push('check count differs');
      if (item('Pitfalls') !== count('Pitfalls', /^- /)) problems.push('pitfall count differs');
      return problems.length === 0 ? undefined : problems.join('; ');
    },
  },
  {
    id: 'links.internal',
    title: 'No dead internal links',
    what_it_means:
      'Every pack path SKILL.md points at exists in the pack: each backticked path in Files in this pack, and each relative Markdown link target (not http(s), mailto or #anchor). Backticked paths in prose are the reader’s own files (e.g. `src/app.ts`) and are not counted.',
    weight: 2,
    run: (input, md) => {
      const listed = (md.section('Files in this pack') ?? [])
        .map((l) => /^- `([^`]+)`/.exec(l)?.[1])
        .filter((p): p is string => p !== undefined);
      const linked = [...(input.pack['SKILL.md'] ?? '').matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1]!)
        .filter((t) => !/^(?:[a-z]+:|#|\/)/i.test(t))
        .map((t) => t.replace(/^\.\//, '').split('#')[0]!);
      const dead = [...new Set([...listed, ...linked])].filter((p) => !Object.hasOwn(input.pack, p));
      return dead.length === 0 ? undefined : `dead: ${dead.join(', ')}`;
    },
  },
  {
    id: 'size.bounds',
    title: 'Sizes within bounds',
    what_it_means: `SKILL.md is ${SIZE.skillMin}–${SIZE.skillMax} bytes with ${SIZE.stepsMin}–${SIZE.stepsMax} steps, and each supporting file at most ${SIZE.fileMax / 1024} KiB: big enough to be a real procedure, small enough to read in one sitting.`,
    weight: 1,
    run: (input, md) => {
      const problems: string[] = [];
      const skill = utf8Bytes(input.pack['SKILL.md'] ?? '');
      if (skill < SIZE.skillMin || skill > SIZE.skillMax) problems.push(`SKILL.md is ${skill} bytes`);
      const steps = (md.section('Steps') ?? []).filter((l) => /^### \d+\. /.test(l)).length;
      if (steps < SIZE.stepsMin || steps > SIZE.stepsMax) problems.push(`${steps} steps`);
      for (const [path, text] of Object.entries(input.pack))
        if (path !== 'SKILL.md' && utf8Bytes(text) > SIZE.fileMax) problems.push(`${path} is ${utf8Bytes(text)} bytes`);
      return problems.length === 0 ? undefined : problems.join('; ');
    },
  },
];

const TOTAL_WEIGHT = EVAL_CHECKS.reduce((n, c) => n + c.weight, 0);

function evaluate(input: EvalInput): SkillEval {
  const md = parse(input.pack['SKILL.md'] ?? '');
  const checks: EvalCheckResult[] = EVAL_CHECKS.map((c) => {
    const why = c.run(input, md);
    return { id: c.id, passed: why === undefined, detail: why ?? '', weight: c.weight };
  });
  const passedWeight = checks.filter((c) => c.passed).reduce((n, c) => n + c.weight, 0);
  return {
    skill_id: input.record.id,
    seal: input.seal,
    score: Math.round((100 * passedWeight) / TOTAL_WEIGHT),
    passed: checks.filter((c) => c.passed).map((c) => c.id),
    failed: checks.filter((c) => !c.passed).map((c) => c.id),
    checks,
  };
}

/** Runs the suite over every pack; deterministic, sorted by skill id. */
export function evaluatePacks(inputs: readonly EvalInput[]): EvalReport {
  const skills: Record<string, SkillEval> = {};
  for (const input of [...inputs].sort((a, b) => (a.record.id < b.record.id ? -1 : 1))) skills[input.record.id] = evaluate(input);
  const all = Object.values(skills);
  const failing: Record<string, number> = Object.fromEntries(
    EVAL_CHECKS.map((c) => [c.id, all.filter((s) => s.failed.includes(c.id)).length]),
  );
  return {
    suite: EVAL_SUITE,
    version: EVAL_SUITE_VERSION,
    checks: EVAL_CHECKS.map(({ id, title, what_it_means, weight }) => ({ id, title, what_it_means, weight })),
    skills,
    summary: {
      skills: all.length,
      mean_score: all.length === 0 ? 0 : Math.round((10 * all.reduce((n, s) => n + s.score, 0)) / all.length) / 10,
      min_score: all.length === 0 ? 0 : Math.min(...all.map((s) => s.score)),
      failing_by_check: failing,
    },
  };
}
