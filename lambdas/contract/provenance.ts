/**
 * Signed provenance of a pack version (issue 52, docs/PROVENANCE.md): two in-toto Statements v1
 * about the same subjects, the pack (its digest, the seal) and each of its files (sha256):
 * - SLSA provenance v1: which build made the bytes from which authored record and commit;
 * - the pack checks ({@link CHECKS_PREDICATE_TYPE}): what the security scan (its scanners and
 *   rule sets, the prompt-injection rules over SKILL.md among them) and the eval suite found in
 *   exactly those bytes when the version was published.
 * Each is signed once per version as a DSSE envelope (payload type {@link IN_TOTO_PAYLOAD_TYPE})
 * in a Sigstore bundle v0.3 with the service key's public-key hint (its JWKS `kid`).
 *
 * Pure functions of a version's record without its bytes ({@link ProvenanceInput}): the same
 * input always gives the same statement, byte for byte, so a stored signature stays valid.
 */
import { digestRef, type PackVersionRecord } from './pack-versions';
import type { SecurityFinding } from './security-report';

export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The DSSE payload type of an in-toto statement. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const SLSA_PROVENANCE_PREDICATE_TYPE = 'https://slsa.dev/provenance/v1';
/**
 * The pack checks predicate, this service's own (its fields: {@link ChecksPredicate}, documented in
 * docs/PROVENANCE.md). A URN, so it names the format without claiming a web address; a change of
 * its fields that a reader could misread gets a new version at the end.
 */
export const CHECKS_PREDICATE_TYPE = 'urn:skill-market:attestation:pack-checks:v1';
/** SLSA's `buildType`: this repository's catalog build, rendering authored records into packs. */
export const CATALOG_BUILD_TYPE = 'urn:skill-market:build-type:catalog-build:v1';
/** The SLSA builder id for a build script named by its path in the repository. */
export const builderId = (builder: string): string => `urn:skill-market:builder:${builder}`;
/** The Sigstore bundle version the service publishes. */
export const SIGSTORE_BUNDLE_MEDIA_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';

/** The predicate types of a version's two statements, in the order the provenance document lists them. */
export const PROVENANCE_PREDICATE_TYPES = [SLSA_PROVENANCE_PREDICATE_TYPE, CHECKS_PREDICATE_TYPE] as const;
export type ProvenancePredicateType = (typeof PROVENANCE_PREDICATE_TYPES)[number];

/** What a version's statements are made of: its record without the pack's bytes (`dist/catalog/provenance-inputs.json`). */
export type ProvenanceInput = Pick<PackVersionRecord, 'skill_id' | 'version' | 'published' | 'digest' | 'files' | 'source' | 'checks'>;

/** `dist/catalog/provenance-inputs.json`: every skill's versions without their bytes, oldest first. */
export type ProvenanceInputs = Record<string, ProvenanceInput[]>;

/** The file the catalog build writes the inputs to, under the built catalog's directory. */
export const PROVENANCE_INPUTS_FILE = 'provenance-inputs.json';

export interface StatementSubject {
  name: string;
  digest: { sha256: string };
}

export interface InTotoStatement<P> {
  _type: typeof IN_TOTO_STATEMENT_TYPE;
  subject: StatementSubject[];
  predicateType: string;
  predicate: P;
}

/** SLSA v1's ResourceDescriptor, as far as the provenance uses it. */
export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest: Record<string, string>;
  annotations?: Record<string, unknown>;
}

export interface SlsaProvenancePredicate {
  buildDefinition: {
    buildType: typeof CATALOG_BUILD_TYPE;
    externalParameters: { skill_id: string; version: number; record: { file: string; id: string } };
    resolvedDependencies: ResourceDescriptor[];
  };
  runDetails: {
    builder: { id: string };
    metadata: { invocationId: string; finishedOn: string };
  };
}

/** The file the prompt-injection rules are reported for: the instructions an agent follows. */
export const PROMPT_INJECTION_FILE = 'SKILL.md';
/** The skill-pack scanner's rules of the prompt-injection category are named `SM-PI-<n>` (catalog/security-rules.ts). */
const PROMPT_INJECTION_RULE = /^SM-PI-\d+$/;

export interface ChecksPredicate {
  skill_id: string;
  version: number;
  /** The day the version was published and checked (YYYY-MM-DD, UTC). */
  published: string;
  security: {
    /** Each scanner with its version and the rule set it ran (a preset by version, or the rule ids). */
    scanners: { name: string; version: string; rules: string }[];
    /** The seal the scan read: the subject's digest. */
    scanned: string;
    is_safe: boolean;
    max_severity: string | null;
    counts: Record<string, number>;
    files_scanned: number;
    findings: SecurityFinding[];
  };
  /** The prompt-injection pass over SKILL.md: the rules applied to it, and what they found there. */
  prompt_injection: {
    file: typeof PROMPT_INJECTION_FILE;
    scanner: string;
    scanner_version: string;
    rules: string[];
    findings: SecurityFinding[];
    passed: boolean;
  };
  eval: {
    suite: string;
    version: string;
    /** The seal the suite read: the subject's digest. */
    evaluated: string;
    score: number;
    passed: string[];
    failed: string[];
    checks: { id: string; passed: boolean; detail: string; weight: number }[];
  };
}

/** The subjects of both statements: the pack by its digest, then each file by its sha256. */
export function provenanceSubjects(input: ProvenanceInput): StatementSubject[] {
  return [
    { name: `${input.skill_id}@${input.version}`, digest: { sha256: input.digest } },
    ...input.files.map((f) => ({ name: `${input.skill_id}/${f.path}`, digest: { sha256: f.sha256 } })),
  ];
}

/** Statement 1: SLSA provenance v1 of the version's bytes. */
export function slsaProvenanceStatement(input: ProvenanceInput): InTotoStatement<SlsaProvenancePredicate> {
  const { record, commit, builder } = input.source;
  const resolvedDependencies: ResourceDescriptor[] = [
    { name: `${record.file}#${record.id}`, uri: record.file, digest: { sha256: record.sha256 } },
  ];
  if (commit) resolvedDependencies.push({ name: 'source', digest: { gitCommit: commit.sha }, annotations: { dirty: commit.dirty } });
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: provenanceSubjects(input),
    predicateType: SLSA_PROVENANCE_PREDICATE_TYPE,
    predicate: {
      buildDefinition: {
        buildType: CATALOG_BUILD_TYPE,
        externalParameters: { skill_id: input.skill_id, version: input.version, record: { file: record.file, id: record.id } },
        resolvedDependencies,
      },
      runDetails: {
        builder: { id: builderId(builder) },
        // The record keeps the day only: the build finished on that UTC day, written as its midnight.
        metadata: { invocationId: `${input.skill_id}@${input.version}`, finishedOn: `${input.published}T00:00:00Z` },
      },
    },
  };
}

/** Statement 2: what was checked in the version's bytes, and what the checks found. */
export function checksStatement(input: ProvenanceInput): InTotoStatement<ChecksPredicate> {
  const { security, eval: evals } = input.checks;
  const skillRules = security.scanners.find((s) => s.name === 'skill-market-rules');
  const piRules = (skillRules?.rules ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => PROMPT_INJECTION_RULE.test(r));
  const piFindings = security.result.findings.filter((f) => f.file === PROMPT_INJECTION_FILE && PROMPT_INJECTION_RULE.test(f.rule_id));
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: provenanceSubjects(input),
    predicateType: CHECKS_PREDICATE_TYPE,
    predicate: {
      skill_id: input.skill_id,
      version: input.version,
      published: input.published,
      security: {
        scanners: security.scanners.map(({ name, version, rules }) => ({ name, version, rules })),
        scanned: digestRef(security.result.seal),
        is_safe: security.result.is_safe,
        max_severity: security.result.max_severity,
        counts: security.result.counts,
        files_scanned: security.result.files_scanned,
        findings: security.result.findings,
      },
      prompt_injection: {
        file: PROMPT_INJECTION_FILE,
        scanner: skillRules?.name ?? 'skill-market-rules',
        scanner_version: skillRules?.version ?? '',
        rules: piRules,
        findings: piFindings,
        passed: piFindings.length === 0,
      },
      eval: {
        suite: evals.suite,
        version: evals.version,
        evaluated: digestRef(evals.result.seal),
        score: evals.result.score,
        passed: evals.result.passed,
        failed: evals.result.failed,
        checks: evals.result.checks.map(({ id, passed, detail, weight }) => ({ id, passed, detail, weight })),
      },
    },
  };
}

/** A version's statement of one predicate type. */
export function provenanceStatement(input: ProvenanceInput, type: ProvenancePredicateType): InTotoStatement<unknown> {
  return type === SLSA_PROVENANCE_PREDICATE_TYPE ? slsaProvenanceStatement(input) : checksStatement(input);
}

/** The DSSE payload: the statement's JSON, the bytes that are signed. */
export const statementPayload = (statement: InTotoStatement<unknown>): string => JSON.stringify(statement);

/**
 * What a verifier checks beside the signature: that each file it holds has the digest a subject
 * names (`<skill>/<path>`), and the pack's digest the pack subject's. Answers the problems, empty
 * when everything matches; a file the statement does not name is a problem too.
 */
export function subjectMismatches(
  statement: Pick<InTotoStatement<unknown>, 'subject'>,
  skillId: string,
  files: readonly { path: string; sha256: string }[],
): string[] {
  const named = new Map(statement.subject.map((s) => [s.name, s.digest.sha256]));
  const problems: string[] = [];
  for (const f of files) {
    const expected = named.get(`${skillId}/${f.path}`);
    if (expected === undefined) problems.push(`${f.path}: not a subject of the statement`);
    else if (expected !== f.sha256) problems.push(`${f.path}: sha256 ${f.sha256} is not the signed ${expected}`);
  }
  return problems;
}

/** The provenance document of `GET /api/packs/provenance` (npm's attestations shape). */
export interface ProvenanceDocument {
  skill_id: string;
  version: number;
  digest: string;
  published: string;
  attestations: { predicateType: ProvenancePredicateType; bundle: unknown }[];
}

/** The key a version's signed statement of one predicate type is kept under (the write-once store). */
export const provenanceKey = (digest: string, type: ProvenancePredicateType): string => `${digest}#${type}`;
