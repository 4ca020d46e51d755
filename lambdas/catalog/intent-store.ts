/** The intent-bounty port: what the catalog domain needs from storage. */

export interface IntentRecord {
  id: string;
  created_at: string;
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

export interface IntentStore {
  /** Stores a new intent; never overwrites an existing id. */
  put(intent: IntentRecord): Promise<void>;
  get(id: string): Promise<IntentRecord | undefined>;
  /** Newest first. Throws {@link InvalidCursorError} for a cursor it did not issue. */
  list(limit: number, cursor: string | undefined): Promise<IntentPage>;
}

export class InvalidCursorError extends Error {}
