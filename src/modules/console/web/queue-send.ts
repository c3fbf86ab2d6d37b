/**
 * Sending the phone's queue of changes (docs/offline.md), the part the page (offline-data.ts) and the service
 * worker (sw.ts: Background Sync while no console is open) share, so there is one way it is done.
 *
 * It imports nothing at run time: the server puts this file's code into the worker's classic script as well
 * (console/sources.ts). Each side gives it its storage (the person's IndexedDB database: through idb in the
 * page, plain IndexedDB in the worker) and its way to send a request.
 */
import type { Method } from './api.ts';

export type Kind = 'animal' | 'task' | 'alert' | 'group' | 'paddock' | 'medicine' | 'device';

/** One queued change, as the list on /sync shows it. */
export interface Change {
  /** Its Idempotency-Key, and its key in the store. */
  key: string;
  seq: number;
  farm: string;
  method: Method;
  template: string;
  path: Record<string, string>;
  body: unknown;
  /** What it is, for people ("Task done: Check the water trough"), in the language of the moment it was made. */
  label: string;
  /**
   * The same as a message key of the console's catalog and its values, so /sync says it in the reader's
   * language of today (offline-changes.ts); absent on a change kept before it was written.
   */
  said?: { key: string; params: Record<string, string | number> };
  made_at: string;
  state: 'waiting' | 'synced' | 'attention';
  /** The server's own words when it refused it (the server writes them). */
  message: string | null;
  /** The refusal's stable code and the member it named, so /sync says it in the reader's language. */
  refusal?: { code: string; param?: string | undefined } | null;
  /**
   * What sending says of it itself, as a code and its values: this file also runs in the service worker,
   * which does not know the reader's language, so /sync writes the sentence (pages/sync.ts `note.*`).
   * `blocked`: it belongs to a record added on this phone that has not synced; `no_answer`: first sent more
   * than a day ago without an answer; `done_by_other` (synced): a task someone else had done, `at` when.
   */
  note?: Note | null;
  /**
   * Needs attention because the record it acts on is no longer on the farm (404: deleted by someone else):
   * there is nothing to fix or send it to, only to discard it.
   */
  gone?: boolean;
  /** When it was first sent (it may have arrived although no answer came back). */
  first_sent_at: number | null;
  synced_at: string | null;
  /** A record added on the phone: its id here until the server gives it one (`server_id`). */
  local_id: string | null;
  server_id: string | null;
}

export type Note =
  | { code: 'blocked' | 'no_answer'; params?: undefined }
  | { code: 'done_by_other'; params: { at: string } };

/** A record kept on the phone (the `records` store). */
export interface LocalRecord {
  key: string;
  farm: string;
  kind: Kind;
  /** The order the server listed it in (alerts: most urgent first). */
  order: number;
  data: Record<string, unknown> & { id: string };
}

/** The person's database as sending needs it: the queue, and the records the phone added. */
export interface QueueStore {
  /** Every change in the queue, in any order. */
  changes(): Promise<Change[]>;
  record(key: string): Promise<LocalRecord | undefined>;
  /** One transaction: changes kept as they are now, changes forgotten, records put and removed. */
  write(step: { keep?: Change[]; forget?: string[]; put?: LocalRecord[]; remove?: string[] }): Promise<void>;
}

/** What the server answered: its JSON body, and whether it was replayed from the Idempotency-Key. */
export interface Sent {
  data: unknown;
  replayed: boolean;
}

/**
 * Sends one request with JSON. Rejects with the API's error as an Error with `status` and `param` (an
 * ApiError in the page), status 0 when no answer came.
 */
export type Sender = (
  method: Method,
  url: string,
  body: unknown,
  headers: Record<string, string>,
) => Promise<Sent>;

/**
 * A change first sent longer ago than this without an answer is not sent again on its own: the server keeps
 * an Idempotency-Key 24 hours, after which a resend could make a second record (docs/offline.md).
 */
export const RESEND_LIMIT_MS = 23 * 3_600_000;
/** The latest synced changes kept to look back on. */
const KEEP_SYNCED = 50;

/** The IndexedDB database of a person's data and queue on this phone. */
export function databaseOf(person: string): string {
  return `farmstead-${person}`;
}

/** The Background Sync tag of a person's queue (the worker reads whose database it is from it). */
export const SYNC_TAG_PREFIX = 'farmstead-sync:';

/** The Web Lock a person's sending runs under, in every tab and in the worker: one sender at a time. */
export function syncLockOf(person: string): string {
  return `farmstead-sync-${person}`;
}

/**
 * Sends every waiting change, oldest first; stops at the first that cannot be sent now ('later': no answer,
 * signed out, busy). `step` runs after each change (the page recounts its queue).
 */
export async function sendQueue(
  store: QueueStore,
  send: Sender,
  step: () => Promise<void> = async () => {},
): Promise<'sent' | 'later'> {
  const all = (await store.changes()).sort((a, b) => a.seq - b.seq);
  const ids = new Map<string, string>();
  for (const c of all) {
    if (c.local_id && c.server_id) ids.set(c.local_id, c.server_id);
    else if (c.local_id && c.state === 'attention') ids.set(`pending:${c.local_id}`, '');
  }
  let outcome: Outcome = 'synced';
  for (const change of all) {
    if (change.state !== 'waiting') continue;
    outcome = await sendChange(store, send, change, ids);
    if (outcome === 'later') break;
    if (outcome === 'attention' && change.local_id) ids.set(`pending:${change.local_id}`, '');
    await step();
  }
  // The list keeps the latest synced changes to look back on, not every one ever.
  const synced = all.filter((c) => c.state === 'synced').sort((a, b) => b.seq - a.seq);
  const old = synced.slice(KEEP_SYNCED).map((c) => c.key);
  if (old.length > 0) await store.write({ forget: old });
  return outcome === 'later' ? 'later' : 'sent';
}

/** The outcome of sending one change: done, kept for later (offline, busy), or refused. */
type Outcome = 'synced' | 'later' | 'attention';

async function sendChange(
  store: QueueStore,
  send: Sender,
  change: Change,
  ids: Map<string, string>,
): Promise<Outcome> {
  const needsAttention = async (
    said: string | Note,
    gone = false,
    refusal: Change['refusal'] = null,
  ): Promise<Outcome> => {
    change.state = 'attention';
    change.message = typeof said === 'string' ? said : null;
    change.refusal = refusal;
    change.note = typeof said === 'string' ? null : said;
    if (gone) change.gone = true;
    await store.write({ keep: [change] });
    return 'attention';
  };
  const pending = [...ids.keys()].filter((k) => k.startsWith('pending:')).map((k) => k.slice(8));
  const text = JSON.stringify([change.path, change.body]);
  if (pending.some((localId) => text.includes(localId))) {
    return needsAttention({ code: 'blocked' });
  }
  if (change.first_sent_at !== null && Date.now() - change.first_sent_at > RESEND_LIMIT_MS) {
    return needsAttention({ code: 'no_answer' });
  }
  const path = withServerIds(change.path, ids) as Record<string, string>;
  const body = withServerIds(change.body, ids);
  // Noted before sending: if the tab closes now, the next sync knows this one may have arrived.
  if (change.first_sent_at === null) {
    change.first_sent_at = Date.now();
    await store.write({ keep: [change] });
  }
  let sent: Sent;
  try {
    sent = await send(change.method, filled(change.template, path), body ?? undefined, {
      'idempotency-key': change.key,
    });
  } catch (err) {
    if (!isRefusal(err)) throw err;
    // No answer, signed out, busy or our fault: try again later with the same key.
    if (err.status === 0 || err.status === 401 || err.status === 429 || err.status >= 500) return 'later';
    // The first sending of this key still running on the server: its answer comes next time. (Any other 409
    // on the key means the request differs from the first: a person must look.)
    if (err.status === 409 && err.param === 'Idempotency-Key' && /in progress/.test(err.message))
      return 'later';
    const refusal = err.code ? { code: err.code, ...(err.param ? { param: err.param } : {}) } : null;
    return needsAttention(err.message, err.status === 404 && change.path.id !== undefined, refusal);
  }
  const answer = (sent.data ?? {}) as Record<string, unknown>;
  change.state = 'synced';
  change.synced_at = new Date().toISOString();
  change.message = null;
  change.refusal = null;
  change.note = noteOf(change, answer, sent.replayed);
  if (!change.local_id || typeof answer.id !== 'string') {
    await store.write({ keep: [change] });
    return 'synced';
  }
  // The record made up on the phone becomes the server's (its real id) in the same step that marks the
  // change synced, so nothing reads the phone between them and finds the new record gone.
  change.server_id = answer.id;
  ids.set(change.local_id, answer.id);
  const kind = change.template.endsWith('/animals') ? 'animal' : 'task';
  const made = await store.record(`${kind}:${change.local_id}`);
  await store.write({
    keep: [change],
    remove: [`${kind}:${change.local_id}`],
    put: [
      {
        key: `${kind}:${answer.id}`,
        farm: made?.farm ?? change.farm,
        kind,
        order: made?.order ?? 0,
        data: { ...answer, id: answer.id },
      },
    ],
  });
  return 'synced';
}

/** An error that is the API's answer (or its absence, status 0), not a fault of the code. */
function isRefusal(err: unknown): err is { status: number; param?: string; code?: string; message: string } {
  return typeof (err as { status?: unknown } | null)?.status === 'number';
}

/** A path template with its values (as api.ts's urlOf, which this file cannot import). */
function filled(template: string, path: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''));
}

/** Replaces ids the phone made up with the server's, once the record they name was added. */
function withServerIds(value: unknown, ids: Map<string, string>): unknown {
  if (ids.size === 0) return value;
  let text = JSON.stringify(value ?? null);
  for (const [localId, serverId] of ids) text = text.split(localId).join(serverId);
  return JSON.parse(text);
}

/**
 * A note on a change the server took: a task someone else had already done is fine, and said so. The change
 * sent its own `done_at` (when Done was tapped), which the server keeps as given unless it is ahead of the
 * server's clock (then the server's now, about when it was first sent) or before the task was created (then
 * the task's `created_at`: a phone whose clock is behind); any other `done_at` is someone else's, before or
 * after the tap.
 */
function noteOf(change: Change, answer: Record<string, unknown>, replayed: boolean): Note | null {
  if (change.template !== '/v1/tasks/{id}/done' || replayed) return null;
  const doneAt = Date.parse(String(answer.done_at ?? ''));
  if (!Number.isFinite(doneAt)) return null;
  const sentAt = change.first_sent_at ?? Date.now();
  const mine = Date.parse(String((change.body as { done_at?: unknown } | null)?.done_at ?? ''));
  const created = Date.parse(String(answer.created_at ?? ''));
  const ours = Number.isFinite(mine)
    ? doneAt === mine || (mine < doneAt && doneAt === created) || (mine > doneAt && doneAt >= sentAt - 60_000)
    : doneAt >= sentAt - 60_000;
  return ours ? null : { code: 'done_by_other', params: { at: new Date(doneAt).toISOString() } };
}
