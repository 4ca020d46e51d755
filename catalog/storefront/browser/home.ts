/**
 * The home page's search: the pre-rendered list (every skill, cheapest first, as /api/catalog
 * orders without a query) is re-ordered and filtered by /api/catalog's answer, so a person and
 * an agent get the same skills in the same order. Without JavaScript the list is still all there.
 */
import { call, explain, isFailure, Unreachable } from './api';
import { byId, markReady } from './dom';

interface CatalogAnswer {
  ok: true;
  total: number;
  results: { id: string }[];
}

/** /api/catalog's largest page (lambdas/catalog/list-catalog.ts CATALOG_LIMIT.max). */
const PAGE = 100;

const form = byId<HTMLFormElement>('search');
const list = byId<HTMLOListElement>('skills');
const count = byId('count');
const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
const items = new Map<string, HTMLElement>();
for (const li of Array.from(list.children) as HTMLElement[]) items.set(li.dataset['id']!, li);
const everything = [...items.keys()];
let latest = 0;

function show(ids: readonly string[], total: number): void {
  for (const li of items.values()) li.hidden = true;
  for (const id of ids) {
    const li = items.get(id);
    if (!li) continue;
    li.hidden = false;
    list.append(li);
  }
  count.textContent =
    total === 0
      ? 'No skill matches. Try fewer words, another category or a higher price.'
      : `${total} skill${total === 1 ? '' : 's'}${total > ids.length ? `: the best ${ids.length} shown` : ''}`;
}

async function search(): Promise<void> {
  const params = new URLSearchParams();
  for (const name of ['q', 'category', 'max_price']) {
    const value = field(name).value.trim();
    if (value) params.set(name, value);
  }
  history.replaceState(null, '', params.size ? `?${params}` : location.pathname);
  if (params.size === 0) return show(everything, everything.length);
  const mine = ++latest;
  count.textContent = 'Searching…';
  params.set('limit', String(PAGE));
  try {
    const answer = await call<CatalogAnswer>(`/api/catalog?${params}`);
    if (mine !== latest) return;
    if (isFailure(answer.body)) count.textContent = explain(answer.body);
    else
      show(
        answer.body.results.map((r) => r.id),
        answer.body.total,
      );
  } catch (e) {
    if (mine === latest) count.textContent = e instanceof Unreachable ? e.message : String(e);
  }
}

let timer: ReturnType<typeof setTimeout> | undefined;
const soon = (): void => {
  clearTimeout(timer);
  timer = setTimeout(() => void search(), 150);
};
form.addEventListener('submit', (e) => {
  e.preventDefault();
  clearTimeout(timer);
  void search();
});
field('q').addEventListener('input', soon);
field('category').addEventListener('change', soon);
field('max_price').addEventListener('change', soon);

const query = new URLSearchParams(location.search);
for (const name of ['q', 'category', 'max_price']) if (query.get(name)) field(name).value = query.get(name)!;
if (query.size) void search();
markReady();
