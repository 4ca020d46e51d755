import { createHash } from 'node:crypto';
import { INTENT_LIFETIME_DAYS, INTENTS_PER_CALLER_PER_DAY, IntentBodySchema } from '../contract/intent-schema';
import { addDays, dayOf } from '../contract/days';
import { callerKey } from '../platform/caller-key';
import { METRICS } from '../contract/metrics';
import { countMetric } from '../platform/metrics';
import { links } from '../contract/links';
import { invalidRequest, notFound, PLATFORM_ERRORS, type AppError } from '../platform/errors';
import { safeParse } from '../platform/validation';
import { json, readJsonObject, type ApiRequest, type ApiResponse } from '../platform/http';
import { optionalInteger, optionalString } from '../platform/query';
import { rankSkills, skillCard } from './skill-card';
import { InvalidCursorError } from './intent-cursor';
import { MAX_QUERY_LENGTH } from './list-catalog';
import type { CatalogPorts, IntentRecord } from './ports';

/** Said with every bounty served: a bounty is a request in its poster's words, never confirmed demand (issue 31). */
const UNCONFIRMED =
  'Intent bounties are requests anyone may post without paying, in their own words: unconfirmed, not demand. Confirmed demand is at /api/signals.';

export const INTENT_SEARCH_LIMIT = { fallback: 10, min: 1, max: 50 } as const;
export const INTENT_LIST_LIMIT = { fallback: 20, min: 1, max: 100 } as const;

/** GET /api/intent: `q` searches skills, `list=1` lists bounties, `id` reads one bounty; exactly one of them. */
export async function getIntent(req: ApiRequest, ports: CatalogPorts): Promise<ApiResponse> {
  const modes = (['q', 'list', 'id'] as const).filter((k) => req.query[k] !== undefined);
  if (modes.length !== 1) {
    throw invalidRequest(
      modes[0] ?? 'q',
      modes.length === 0 ? 'Give one of `q` (search), `list=1` or `id`.' : `Give only one of ${modes.map((m) => `\`${m}\``).join(', ')}.`,
      'GET /api/intent?q=clean%20a%20messy%20csv, /api/intent?list=1 or /api/intent?id=int_…',
    );
  }
  if (modes[0] === 'q') return searchIntent(req, ports);
  if (modes[0] === 'list') return listIntents(req, ports);
  return getOneIntent(req, ports);
}

function searchIntent(req: ApiRequest, { catalog }: CatalogPorts): ApiResponse {
  const q = optionalString(req, 'q', { maxLength: MAX_QUERY_LENGTH, minLength: 0 })!;
  const limit = optionalInteger(req, 'limit', INTENT_SEARCH_LIMIT);
  if (q === '') {
    // No need given yet (the ESP root advertises this URL): the featured skills from the price
    // source, canary first, and how to ask. Nothing is ranked, so nothing carries a score.
    const ids = [catalog.pricing.canary, ...catalog.pricing.x402Resources.filter((id) => id !== catalog.pricing.canary)];
    const results = ids.slice(0, limit).map((id) => skillCard(catalog.get(id)!, req.baseUrl));
    return json(200, {
      ok: true,
      query: '',
      order: 'featured',
      total: ids.length,
      count: results.length,
      results,
      tip: 'Describe what you need: GET /api/intent?q=clean%20a%20messy%20csv ranks skills for it.',
    });
  }
  const { total, results } = rankSkills(catalog, q, limit, req.baseUrl);
  return json(200, { ok: true, query: q, order: 'relevance', total, count: results.length, results });
}

async function listIntents(req: ApiRequest, { intents }: CatalogPorts): Promise<ApiResponse> {
  if (req.query['list'] !== '1') throw invalidRequest('list', '`list` takes the value 1.', 'GET /api/intent?list=1');
  const limit = optionalInteger(req, 'limit', INTENT_LIST_LIMIT);
  const cursor = optionalString(req, 'cursor', { maxLength: 1000 });
  try {
    const page = await intents.list(limit, cursor);
    return json(200, {
      ok: true,
      count: page.items.length,
      intents: page.items,
      next_cursor: page.next_cursor ?? null,
      confirmed: false,
      note: UNCONFIRMED,
    });
  } catch (e) {
    if (e instanceof InvalidCursorError)
      throw invalidRequest(
        'cursor',
        'The cursor is not one this service issued.',
        'Use next_cursor from the previous page, or leave it out.',
      );
    throw e;
  }
}

async function getOneIntent(req: ApiRequest, { intents }: CatalogPorts): Promise<ApiResponse> {
  const id = optionalString(req, 'id', { maxLength: 64 })!;
  const intent = /^int_[0-9a-f]{20}$/.test(id) ? await intents.get(id) : undefined;
  if (!intent) throw notFound(`No intent with id "${id}".`, 'GET /api/intent?list=1 lists the intents.');
  return json(200, { ok: true, intent, confirmed: false, note: UNCONFIRMED });
}

/** The daily allowance is spent: 429 RATE_LIMITED with Retry-After until the next UTC day, as a route's limit answers. */
function dailyCapReached(now: Date): AppError {
  const retryAfter = Math.max(1, Math.ceil((Date.parse(`${addDays(dayOf(now), 1)}T00:00:00Z`) - now.getTime()) / 1000));
  countMetric(METRICS.rateLimited, { Scope: 'intent-daily' });
  return PLATFORM_ERRORS.RATE_LIMITED({
    message: `This address has posted ${INTENTS_PER_CALLER_PER_DAY} intent bounties today (UTC), the most one caller may post in a day.`,
    tip: `Retry after ${retryAfter} s (the Retry-After header), when the next UTC day begins. Bounties already posted stay listed for ${INTENT_LIFETIME_DAYS} days.`,
    details: { retry_after_seconds: retryAfter, limit: INTENTS_PER_CALLER_PER_DAY, window: 'UTC day', scope: 'intent-daily' },
    headers: { 'retry-after': String(retryAfter) },
  });
}

/** A pseudonym of the caller for the daily count (never published, never stored with the bounty). */
const intentCaller = (sourceIp: string): string =>
  createHash('sha256')
    .update(`intent-caller:${callerKey(sourceIp)}`)
    .digest('hex');

/**
 * POST /api/intent: stores a bounty with a server-made id and time, the skills search suggests
 * for it, and its expiry. Anyone may post without paying, so each caller's bounties per UTC day
 * are capped (the route's per-minute limit is in the route table) and every bounty expires.
 */
export async function postIntent(req: ApiRequest, ports: CatalogPorts): Promise<ApiResponse> {
  const body = readJsonObject(req);
  if (body === undefined)
    throw invalidRequest(
      'body',
      'The body must be a JSON object with `title` or `description`, and `success_criteria`.',
      'Example: {"title":"Clean a CSV","success_criteria":["every row has 12 columns"]}',
    );
  const parsed = safeParse(IntentBodySchema, body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ parameter: i.path.join('.') || 'body', problem: i.message }));
    const first = issues[0]!;
    throw invalidRequest(
      first.parameter,
      `Invalid intent: ${issues.map((i) => `${i.parameter}: ${i.problem}`).join('; ')}.`,
      'Required: `title` or `description`, and `success_criteria` (1 to 10 strings). Optional: `budget_usd`, `skill_hints`.',
    );
  }
  const b = parsed.data;
  for (const hint of b.skill_hints ?? []) {
    if (!ports.catalog.get(hint))
      throw invalidRequest(
        'skill_hints',
        `Unknown skill "${hint}" in skill_hints.`,
        'Hints must be catalog ids; GET /api/catalog lists them.',
      );
  }
  const now = ports.now();
  // Counted only for a valid bounty, just before it is written: a rejected body spends nothing of the day.
  if (!(await ports.intents.admit(intentCaller(req.sourceIp), now, INTENTS_PER_CALLER_PER_DAY))) throw dailyCapReached(now);
  const suggested = ports.catalog
    .search([b.title, b.description].filter(Boolean).join(' ').slice(0, MAX_QUERY_LENGTH))
    .slice(0, 3)
    .map((h) => ({ skill_id: h.id, score: h.score }));
  const intent: IntentRecord = {
    id: ports.newIntentId(),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INTENT_LIFETIME_DAYS * 86_400_000).toISOString(),
    status: 'open',
    ...(b.title !== undefined ? { title: b.title } : {}),
    ...(b.description !== undefined ? { description: b.description } : {}),
    success_criteria: b.success_criteria,
    ...(b.budget_usd !== undefined ? { budget_usd: b.budget_usd } : {}),
    ...(b.skill_hints !== undefined ? { skill_hints: b.skill_hints } : {}),
    suggested_skills: suggested,
  };
  await ports.intents.put(intent);
  return json(200, { ok: true, intent, url: links(req.baseUrl).intent_by_id(intent.id) });
}
