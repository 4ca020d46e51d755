/**
 * Renders a skill record into its files: the sealed SKILL.md (plus supporting files),
 * the free outline and the free sample. The sample is a verbatim excerpt of SKILL.md.
 */
import type { SkillRecord } from './schema';

/** Separates the verbatim excerpt from the sample's closing note; tests strip from here. */
export const SAMPLE_END_MARKER = '\n\n<!-- end of excerpt -->\n';

function fileLine(path: string, content: string): string {
  const first = content
    .split('\n')
    .find((l) => l.trim() !== '' && !l.startsWith('#!'))
    ?.replace(/^[#/*\s-]+/, '')
    .trim();
  return `- \`${path}\`${first ? `: ${first.slice(0, 100)}` : ''}`;
}

/**
 * SKILL.md's YAML frontmatter, as the Agent Skills format requires it (`name`, which equals the
 * skill's directory name, and `description`), so that a pack installs as a skill as it is and MCP's
 * Skills extension can list it. The description is written as a JSON string, which YAML reads as a
 * double-quoted scalar, so no summary can break the frontmatter.
 */
export function frontmatter(s: Pick<SkillRecord, 'id' | 'summary'>): string[] {
  return ['---', `name: ${s.id}`, `description: ${JSON.stringify(s.summary)}`, '---', ''];
}

/** SKILL.md after its frontmatter: what the sample excerpts. */
export const skillBody = (md: string): string => md.replace(/^---\n[\s\S]*?\n---\n\n/, '');

/** The head of SKILL.md's body up to and including the first step: what the sample shows. */
function skillHead(s: SkillRecord): string {
  const first = s.steps[0]!;
  return [
    `# ${s.name}`,
    '',
    s.summary,
    '',
    '## When to use',
    '',
    s.audience,
    '',
    '## Outcome',
    '',
    s.outcome,
    '',
    '## Before you start',
    '',
    ...s.inputs.map((i) => `- ${i}`),
    '',
    '## Steps',
    '',
    `### 1. ${first.title}`,
    '',
    first.detail,
  ].join('\n');
}

export function renderSkillMd(s: SkillRecord): string {
  const rest = s.steps.slice(1).flatMap((step, i) => ['', `### ${i + 2}. ${step.title}`, '', step.detail]);
  const files = Object.entries(s.files ?? {});
  return [
    ...frontmatter(s),
    skillHead(s),
    ...rest,
    '',
    '## Checks',
    '',
    'The job is done when every check holds:',
    '',
    ...s.checks.map((c) => `- [ ] ${c}`),
    '',
    '## Pitfalls',
    '',
    ...s.pitfalls.map((p) => `- ${p}`),
    '',
    '## Worked example',
    '',
    `**Situation.** ${s.example.situation}`,
    '',
    `**Walkthrough.** ${s.example.walkthrough}`,
    '',
    `**Result.** ${s.example.result}`,
    ...(files.length > 0 ? ['', '## Files in this pack', '', ...files.map(([p, c]) => fileLine(p, c))] : []),
    '',
  ].join('\n');
}

/** The sealed pack: SKILL.md plus the supporting files. */
export function renderPack(s: SkillRecord): Record<string, string> {
  return { 'SKILL.md': renderSkillMd(s), ...(s.files ?? {}) };
}

export function renderSample(s: SkillRecord, payPath: string): string {
  return [
    skillHead(s),
    SAMPLE_END_MARKER,
    '---',
    '',
    `*Free sample: the opening of SKILL.md, through step 1 of ${s.steps.length}. The full pack also has ${s.checks.length} acceptance checks, ${s.pitfalls.length} pitfalls, a worked example${s.files ? ` and ${Object.keys(s.files).length} supporting file${Object.keys(s.files).length === 1 ? '' : 's'}` : ''}. Buy it: \`GET ${payPath}\` answers with the x402 challenge.*`,
    '',
  ].join('\n');
}
