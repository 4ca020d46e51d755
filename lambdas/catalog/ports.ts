/**
 * The catalog domain's view of the outside: the built catalog (read-only) and the intent
 * bounty store. Interfaces only; `wiring.ts` builds them, `adapters/` implements them.
 */
import type { CatalogEntry, PackMeta, SubscriptionPlan } from '../contract/catalog-data';
import type { PackVersionMeta } from '../contract/pack-versions';

/** A search hit: the skill, its BM25 score and the query terms (as indexed) with the fields each matched in. */
export interface SkillHit {
  id: string;
  score: number;
  matched: Record<string, string[]>;
}

/** The catalog as every domain sees it: a read-only port over the built catalog data. */
export interface Catalog {
  /** All skills, sorted by id. */
  readonly entries: readonly CatalogEntry[];
  readonly categories: readonly string[];
  get(id: string): CatalogEntry | undefined;
  packMeta(id: string): PackMeta | undefined;
  /**
   * A skill's published versions, oldest first: the last is the current one, whose digest is
   * `packMeta(id).seal` (issue 52). Read from the built index on first use, not at a cold start.
   */
  versions(id: string): readonly PackVersionMeta[] | undefined;
  search(query: string): SkillHit[];
  /** The free evaluation material of a skill: the outline document and the sample Markdown. */
  evaluation(id: string): { outline: Record<string, unknown>; sample: string } | undefined;
  /** The canary, the ten featured x402 resources, the card prices, the plans and the meter's minimum, from the price source. */
  readonly pricing: {
    canary: string;
    x402Resources: readonly string[];
    cardCents: Readonly<Record<string, number>>;
    plans: readonly SubscriptionPlan[];
    /** Atomic USDC. */
    meterMinTopUp: string;
  };
}

export interface IntentRecord {
  id: string;
  created_at: string;
  /** When the bounty stops being listed or served and DynamoDB's TTL deletes it: `created_at` + 30 days. */
  expires_at: string;
  status: 'open';
  title?: string;
  description?: string;
  success_criteria: string[];
  budget_usd?: number;
  skill_hints?: string[];
  /** Skills the catalog search suggested for the intent when it was posted. */
  suggested_skills: { skill_id: string; score: number }[];
}

export interface IntentPage {
  items: IntentRecord[];
  /** Opaque; pass back as `cursor` for the next page. Absent on the last page. */
  next_cursor?: string;
}

/** The intent-bounty store: what the catalog domain needs from storage. Expired bounties are never returned. */
export interface IntentStore {
  /**
   * Counts one bounty against `caller`'s allowance for the UTC day of `at` (one conditional
   * write, exact under concurrency and across instances): false, and nothing counted, when
   * `perDay` were already counted that day.
   */
  admit(caller: string, at: Date, perDay: number): Promise<boolean>;
  /** Stores a new intent until its `expires_at`; never overwrites an existing id. */
  put(intent: IntentRecord): Promise<void>;
  get(id: string): Promise<IntentRecord | undefined>;
  /** Newest first, unexpired only. Throws `InvalidCursorError` (intent-cursor.ts) for a cursor it did not issue. */
  list(limit: number, cursor: string | undefined): Promise<IntentPage>;
}

export interface CatalogPorts {
  catalog: Catalog;
  intents: IntentStore;
  now: () => Date;
  /** A new intent id: `int_` and 20 random hex digits. */
  newIntentId: () => string;
}

/** The published versions a deploy carries (its bundle's copy of dist/versions), by content-addressed key. */
export interface VersionFiles {
  /** Every key, `sha256/<digest>.json`. */
  keys(): Promise<string[]>;
  read(key: string): Promise<Uint8Array>;
}

/**
 * The versions bucket as its publisher sees it: write-once (Object Lock, a bucket policy that
 * refuses any write without If-None-Match: *), never deleted from.
 */
export interface VersionBucket {
  /** Every key the bucket holds. */
  keys(): Promise<Set<string>>;
  /** Creates the object only if its key is new: `exists` when the bucket already holds the key (S3's 412). */
  putNew(key: string, bytes: Uint8Array): Promise<'created' | 'exists'>;
  /** The stored bytes of a key, or undefined when there are none. */
  read(key: string): Promise<Uint8Array | undefined>;
}

export interface VersionsPublisherPorts {
  files: VersionFiles;
  bucket: VersionBucket;
}
