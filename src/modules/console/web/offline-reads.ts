/**
 * The GETs the phone answers from what it keeps (docs/offline.md), when the network cannot: the catalog, the
 * farm's brief, houses, groups, paddocks, the medicine cabinet, the devices (filtered as the server would),
 * open alerts and tasks, the herd (searched as the server would), an animal, and the events logged here and
 * not yet synced. Each answer has the API's type for its path (api-types.ts), so the compiler holds this copy
 * to the server's answers.
 */
import type { Page, Reply, Request, Schema } from './api.ts';
import { eventOf } from './offline-changes.ts';
import { currentFarm, keptRecords, type Local, local } from './offline-db.ts';
import type { Change } from './queue-send.ts';

type Animal = Schema<'Animal'>;
type Device = Schema<'Device'>;

/** The paths the phone answers, each with how. */
type KeptPath =
  | '/v1/catalog'
  | '/v1/farms/{farm}/brief'
  | '/v1/farms/{farm}/houses'
  | '/v1/farms/{farm}/groups'
  | '/v1/farms/{farm}/paddocks'
  | '/v1/farms/{farm}/medicines'
  | '/v1/farms/{farm}/devices'
  | '/v1/farms/{farm}/alerts'
  | '/v1/farms/{farm}/tasks'
  | '/v1/farms/{farm}/animals'
  | '/v1/farms/{farm}/events'
  | '/v1/animals/{id}';

type Query<P extends KeptPath> = NonNullable<Request<'GET', P>['query']>;

/** Where a read is answered from: the person's database, the farm, and the path's parameters. */
interface Place {
  db: Local;
  farm: string;
  path: Record<string, string>;
}

type Reader<P extends KeptPath> = (at: Place, query: Query<P>) => Promise<Reply<'GET', P> | undefined>;

function page<T>(data: T[], hasMore = false, next: string | null = null): Page<T> {
  return { data, has_more: hasMore, next_before: next };
}

const READERS: { [P in KeptPath]: Reader<P> } = {
  '/v1/catalog': async ({ db }) => db.get('meta', 'catalog'),
  '/v1/farms/{farm}/brief': async ({ db, farm }) => db.get('meta', `brief:${farm}`),
  '/v1/farms/{farm}/houses': async ({ db, farm }, query) =>
    page(query.before ? [] : ((await db.get('meta', `houses:${farm}`)) ?? [])),
  '/v1/farms/{farm}/groups': async ({ db, farm }) => page(await keptRecords(db, farm, 'group')),
  '/v1/farms/{farm}/paddocks': async ({ db, farm }) => page(await keptRecords(db, farm, 'paddock')),
  '/v1/farms/{farm}/medicines': async ({ db, farm }) => page(await keptRecords(db, farm, 'medicine')),
  '/v1/farms/{farm}/devices': async ({ db, farm }, query) =>
    listDevices(await keptRecords(db, farm, 'device'), query),
  '/v1/farms/{farm}/alerts': async ({ db, farm }, query) => {
    const wanted = query.status ?? 'active';
    const all = await keptRecords(db, farm, 'alert');
    return page(
      all.filter((a) =>
        wanted === 'all' ? true : wanted === 'active' ? a.status !== 'resolved' : a.status === wanted,
      ),
    );
  },
  '/v1/farms/{farm}/tasks': async ({ db, farm }, query) => {
    const all = await keptRecords(db, farm, 'task');
    const { status: wanted, assignee: who } = query;
    return page(all.filter((t) => (!wanted || t.status === wanted) && (!who || t.assignee === who)));
  },
  '/v1/farms/{farm}/animals': async ({ db, farm }, query) =>
    searchAnimals(await keptRecords(db, farm, 'animal'), query),
  '/v1/farms/{farm}/events': async ({ db, farm }, query) =>
    page(query.before ? [] : await queuedEvents(db, farm, query.subject_id)),
  '/v1/animals/{id}': async ({ db, path }) => {
    const row: { data: Animal } | undefined = await db.get('records', `animal:${path.id}`);
    return row?.data;
  },
};

function isKept(template: string): template is KeptPath {
  return Object.hasOwn(READERS, template);
}

/** Answers one kept path: the reader and the query are the same path's. */
function answer<P extends KeptPath>(template: P, at: Place, query: Query<P>) {
  return READERS[template](at, query);
}

/** A GET answered from the phone, or undefined when the phone does not keep it. */
export async function read(
  template: string,
  path: Record<string, string>,
  query: Record<string, unknown>,
): Promise<unknown> {
  const db = await local();
  if (!db) return undefined;
  const farm = path.farm ?? currentFarm();
  if (!farm || !(await db.get('meta', `asof:${farm}`))) return undefined;
  if (!isKept(template)) return undefined;
  // api() built this query from the typed request of the same path (web/api.ts's Request).
  return answer(template, { db, farm, path }, query as Query<typeof template>);
}

/** The animals matching a list query, newest first, a page at a time (the cursor is an offset here). */
function searchAnimals(all: Animal[], query: Query<'/v1/farms/{farm}/animals'>): Page<Animal> {
  const q = query.q?.toLowerCase();
  const exact = ['species', 'status', 'tag', 'eid', 'group_id', 'paddock_id'] as const;
  const found = all.filter((a) => {
    for (const name of exact) {
      const wanted = query[name];
      if (wanted !== undefined && a[name] !== wanted) return false;
    }
    if (query.withdrawal === 'active' && !underWithdrawal(a)) return false;
    if (!q) return true;
    return [a.name, a.tag, a.eid, a.breed].some((v) => v?.toLowerCase().includes(q));
  });
  found.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  return pageOf(found, query);
}

/** The devices matching a list query (type, animal, group), in the server's order, a page at a time. */
function listDevices(all: Device[], query: Query<'/v1/farms/{farm}/devices'>): Page<Device> {
  const found = all.filter(
    (d) =>
      (!query.type || d.type === query.type) &&
      (!query.animal_id || d.animal_id === query.animal_id) &&
      (!query.group_id || d.group_id === query.group_id),
  );
  return pageOf(found, query);
}

/** One page of `found` from an offline cursor (an offset here: `offline:<n>`). */
function pageOf<T>(found: T[], query: { limit?: number | undefined; before?: string | undefined }): Page<T> {
  const limit = Number(query.limit ?? 50);
  const from = Number(/^offline:(\d+)$/.exec(query.before ?? '')?.[1] ?? 0);
  const shown = found.slice(from, from + limit);
  const more = from + limit < found.length;
  return page(shown, more, more ? `offline:${from + limit}` : null);
}

/** The server's `?withdrawal=active`, as of the last refresh. */
function underWithdrawal(a: Animal, now = Date.now()): boolean {
  const w = a.withdrawal;
  return [w?.meat_until, w?.milk_until, w?.eggs_until].some((until) => until && Date.parse(until) > now);
}

/** The events logged on the phone and not yet synced (the server's log is not kept offline). */
async function queuedEvents(db: Local, farm: string, subject: string | undefined) {
  const queue = (await db.getAll('queue')) as Change[];
  return queue
    .filter((c) => c.state !== 'synced' && c.farm === farm && c.template === '/v1/farms/{farm}/events')
    .map((c) => eventOf(c))
    .filter((e) => !subject || e.subject_id === subject)
    .reverse();
}
