/** Shapes of the security scan the catalog build runs over every pack (dist/catalog/security.json). */

export type SecuritySeverity = 'critical' | 'high' | 'medium' | 'low' | 'info';

export interface SecurityFinding {
  rule_id: string;
  category: string;
  severity: SecuritySeverity;
  file: string;
  line: number;
  column: number;
  /** The matched text, a secret's value redacted. */
  snippet: string;
  remediation: string;
  scanner: 'secretlint' | 'skill-market-rules';
}

export interface SkillSecurity {
  skill_id: string;
  /** The pack seal that was scanned. */
  seal: string;
  /** No finding of severity high or critical. */
  is_safe: boolean;
  max_severity: SecuritySeverity | null;
  counts: Record<SecuritySeverity, number>;
  files_scanned: number;
  findings: SecurityFinding[];
}

export interface SecurityReport {
  schema: string;
  scanners: { name: string; version: string; rules: string }[];
  skills: Record<string, SkillSecurity>;
  totals: { skills: number; safe: number; findings: number; by_severity: Record<SecuritySeverity, number> };
}
