/**
 * The eval suite: each check fails on a crafted defect and passes on the built pack, the
 * failing check is named and costs exactly its weight, and the real catalog evaluates the same
 * twice with a score and the suite version for every skill.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, loadSkills, type BuildResult } from '../../catalog/build';
import { EVAL_CHECKS, EVAL_SUITE_VERSION, evaluatePacks, isVerifiable, type EvalInput } from '../../catalog/eval-suite';

let built: BuildResult;
let good: EvalInput;
beforeAll(async () => {
  built = await buildCatalog();
  const id = 'ab-test-readout'; // has a supporting file, so every check has something to look at
  good = {
    record: loadSkills().find((s) => s.id === id)!,
    pack: built.packs.get(id)!,
    sample: built.publicFiles.get(`skills/${id}/sample.md`)!.toString(),
    outline: JSON.parse(built.publicFiles.get(`skills/${id}/outline.json`)!.toString()) as unknown,
    seal: built.packMeta.get(id)!.seal,
  };
});

const weight = (id: string) => EVAL_CHECKS.find((c) => c.id === id)!.weight;
const total = EVAL_CHECKS.reduce((n, c) => n + c.weight, 0);
const run = (input: EvalInput) => evaluatePacks([input]).skills[input.record.id]!;
const withSkill = (edit: (md: string) => string): EvalInput => ({
  ...good,
  pack: { ...good.pack, 'SKILL.md': edit(good.pack['SKILL.md']!) },
});

describe('the eval suite', () => {
  it('scores a sound pack 100 with nothing failed', () => {
    expect(run(good)).toMatchObject({ score: 100, failed: [], seal: good.seal });
  });

  it.each<[string, () => EvalInput]>([
    ['sections.required', () => withSkill((md) => md.replace('## Pitfalls', '## Caveats'))],
    [
      'checks.verifiable',
      () =>
        withSkill((md) =>
          md.replace(
            '## Checks\n\nThe job is done when every check holds:\n\n',
            '## Checks\n\nThe job is done when every check holds:\n\n- [ ] The readout works well for the team\n',
          ),
        ),
    ],
    ['sample.verbatim', () => ({ ...good, sample: good.sample.replace('## Outcome', '## Outcomes') })],
    [
      'outline.matches',
      () => ({
        ...good,
        outline: {
          ...(good.outline as object),
          pack: { ...(good.outline as any).pack, files: (good.outline as any).pack.files.map((f: any) => ({ ...f, bytes: f.bytes + 1 })) },
        },
      }),
    ],
    ['links.internal', () => withSkill((md) => `${md}- \`scripts/missing.sh\`: a file the pack does not have\n`)],
    ['size.bounds', () => ({ ...good, pack: { ...good.pack, 'data/huge.csv': 'x'.repeat(70 * 1024) } })],
  ])('%s fails on its defect, is named, and costs its weight', (id, bad) => {
    const result = run(bad());
    expect(result.failed).toContain(id);
    expect(result.checks.find((c) => c.id === id)!.detail).not.toBe('');
    const lost = result.failed.reduce((n, f) => n + weight(f), 0);
    expect(result.score).toBe(Math.round((100 * (total - lost)) / total));
  });

  it('reads a check as verifiable by what it says, not by words inside its code', () => {
    expect(isVerifiable('`npm test` exits 0 on the release branch')).toBe(true);
    expect(isVerifiable("grep -iE 'should have' on the document returns no matches")).toBe(true);
    expect(isVerifiable('A good deploy produces 0 target 5XX responses')).toBe(true);
    expect(isVerifiable('Tests pass')).toBe(false);
    expect(isVerifiable('The pipeline should work properly for everyone')).toBe(false);
  });

  it('evaluates the real catalog the same way twice: a score and the suite version for every skill', async () => {
    const again = await buildCatalog();
    expect(again.catalogFiles.get('eval.json')).toBe(built.catalogFiles.get('eval.json'));
    const report = JSON.parse(built.catalogFiles.get('eval.json')!);
    expect(report.version).toBe(EVAL_SUITE_VERSION);
    expect(Object.keys(report.skills)).toHaveLength(250);
    for (const s of Object.values<any>(report.skills)) {
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.seal).toBe(built.packMeta.get(s.skill_id)!.seal);
    }
    expect(report.summary.failing_by_check['sample.verbatim']).toBe(0);
  });
});
