/** Shapes of the eval suite the catalog build runs over every pack (dist/catalog/eval.json). */

export interface EvalCheckResult {
  id: string;
  passed: boolean;
  /** Why it failed, naming the section, file or link; empty when it passed. */
  detail: string;
  weight: number;
}

export interface SkillEval {
  skill_id: string;
  /** The pack seal that was evaluated. */
  seal: string;
  /** 0 to 100: round(100 × passed weight / total weight). */
  score: number;
  passed: string[];
  failed: string[];
  checks: EvalCheckResult[];
}

export interface EvalReport {
  suite: string;
  version: string;
  checks: { id: string; title: string; what_it_means: string; weight: number }[];
  skills: Record<string, SkillEval>;
  summary: { skills: number; mean_score: number; min_score: number; failing_by_check: Record<string, number> };
}
