/**
 * The changes kept on the phone for later (docs/offline.md): api() queues a write that can wait (mark a task
 * done, add a task, log an event, add or edit an animal, acknowledge an alert, give a treatment) with its own Idempotency-Key
 * and the time it was made, names it for the list on /sync, and shows it on the phone's data at once.
 * Sending the queue is queue-send.ts's (run by offline-data.ts's sync and by the service worker).
 */
import { ApiError, type QueuedCall, type Schema } from './api.ts';
import { requestBackgroundSync } from './background-sync.ts';
import { type MessageKey, qty, t } from './i18n.ts';
import { EN } from './messages/en.ts';
import { countQueue, currentFarm, currentPerson, type Local, local } from './offline-db.ts';
import type { Change, Kind, LocalRecord } from './queue-send.ts';

type Animal = Schema<'Animal'>;

let seq = 0;

/** The queue, oldest first. */
export async function listQueue(): Promise<Change[]> {
  const db = await local();
  if (!db) return [];
  return ((await db.getAll('queue')) as Change[]).sort((a, b) => a.seq - b.seq);
}

/** A name for an animal people recognise: "Bella (A12)", its tag, its name, its EID. */
function animalName(a: Partial<Animal> | undefined): string {
  if (a?.name && a.tag) return t('sentence.animal_named', { name: a.name, tag: a.tag });
  return a?.tag ?? a?.name ?? a?.eid ?? t('change.an_animal');
}

type Said = NonNullable<Change['said']>;

/** What a logged event says, with its content: "Weighed Bella (A12): 412 kg", "Note on Herd: …". */
function eventSaid(type: string, subject: string, body: Record<string, unknown>): Said {
  const data = (body.data ?? {}) as Record<string, unknown>;
  const notes = typeof body.notes === 'string' && body.notes ? body.notes : null;
  switch (type) {
    case 'weight':
      if (typeof data.kg === 'number') return { key: 'change.weighed', params: { subject, weight: data.kg } };
      return notes
        ? { key: 'change.weighed_notes', params: { subject, notes } }
        : { key: 'change.weighed_plain', params: { subject } };
    case 'treatment': {
      const what = [data.product ?? data.drug ?? data.name, data.dose].filter(Boolean).join(', ') || notes;
      return what
        ? { key: 'change.treated', params: { subject, what: String(what) } }
        : { key: 'change.treated_plain', params: { subject } };
    }
    case 'note':
      return notes
        ? { key: 'change.note', params: { subject, notes } }
        : { key: 'change.note_plain', params: { subject } };
    case 'birth':
      return notes
        ? { key: 'change.birth_notes', params: { subject, notes } }
        : { key: 'change.birth', params: { subject } };
    default:
      return notes
        ? { key: 'change.event_notes', params: { event: type, subject, notes } }
        : { key: 'change.event', params: { event: type, subject } };
  }
}

/** The change in words, as a catalog key and its values (change-label.ts says it). */
async function saidOf(db: Local, call: QueuedCall): Promise<Said> {
  const body = (call.body ?? {}) as Record<string, unknown>;
  const recordName = async (kind: Kind, id: string | undefined) => {
    const row = (await db.get('records', `${kind}:${id}`)) as LocalRecord | undefined;
    const data = row?.data as Record<string, string | null> | undefined;
    return kind === 'animal' ? animalName(data as Partial<Animal>) : (data?.title ?? data?.name ?? id ?? '');
  };
  switch (call.template) {
    case '/v1/tasks/{id}/done':
      return { key: 'change.task_done', params: { task: await recordName('task', call.path.id) } };
    case '/v1/farms/{farm}/tasks':
      return { key: 'change.task_new', params: { task: String(body.title ?? '') } };
    case '/v1/farms/{farm}/events': {
      const kind = body.subject_type && body.subject_id ? String(body.subject_type) : null;
      const subject =
        kind === 'animal' || kind === 'group' || kind === 'paddock'
          ? await recordName(kind, String(body.subject_id))
          : kind
            ? `subject_kind.${kind}` in EN
              ? t(`subject_kind.${kind}` as MessageKey)
              : kind
            : t('sentence.farm');
      return eventSaid(String(body.type), subject, body);
    }
    case '/v1/farms/{farm}/animals':
      return { key: 'change.animal_new', params: { animal: animalName(body as Partial<Animal>) } };
    case '/v1/animals/{id}':
      return {
        key: 'change.animal_edited',
        params: { animal: await recordName('animal', call.path.id), fields: Object.keys(body).join(', ') },
      };
    case '/v1/alerts/{id}/acknowledge': {
      const row = (await db.get('records', `alert:${call.path.id}`)) as LocalRecord | undefined;
      return { key: 'change.acknowledged', params: { alert: String(row?.data.title ?? call.path.id) } };
    }
    case '/v1/farms/{farm}/treatments': {
      const medicine = await recordName('medicine', String(body.medicine_id));
      const ids = Array.isArray(body.animal_ids) ? (body.animal_ids as string[]) : [];
      if (body.group_id) {
        const group = await recordName('group', String(body.group_id));
        return { key: 'change.treatment_group', params: { medicine, group } };
      }
      if (ids.length === 1)
        return {
          key: 'change.treatment_animal',
          params: { medicine, animal: await recordName('animal', ids[0]) },
        };
      return { key: 'change.treatment_animals', params: { medicine, count: ids.length } };
    }
    case '/v1/animals/{id}/weights':
      return {
        key: 'change.weight',
        params: { weight: Number(body.kg), animal: await recordName('animal', call.path.id) },
      };
    default:
      return { key: 'change.other', params: { method: call.method, path: call.template } };
  }
}

/** Shows a change on the phone's data as if it were made; returns what the API would have answered. */
export async function applyLocally(db: Local, change: Change): Promise<unknown> {
  const now = change.made_at;
  const body = (change.body ?? {}) as Record<string, unknown>;
  const merge = async (kind: Kind, id: string, patch: Record<string, unknown>) => {
    const row = (await db.get('records', `${kind}:${id}`)) as LocalRecord | undefined;
    if (!row) return { id, ...patch };
    row.data = { ...row.data, ...patch };
    await db.put('records', row);
    return row.data;
  };
  const add = async (kind: Kind, data: Record<string, unknown> & { id: string }) => {
    await db.put('records', { key: `${kind}:${data.id}`, farm: change.farm, kind, order: -change.seq, data });
    return data;
  };
  const id = change.path.id ?? '';
  switch (change.template) {
    case '/v1/tasks/{id}/done':
      return merge('task', id, { status: 'done', done_at: now });
    case '/v1/alerts/{id}/acknowledge':
      return merge('alert', id, { status: 'acknowledged', acknowledged_at: now });
    case '/v1/animals/{id}':
      return merge('animal', id, body);
    case '/v1/farms/{farm}/tasks':
      return add('task', {
        notes: null,
        due_at: null,
        due_date: null,
        assignee: null,
        alert_id: null,
        done_at: null,
        ...body,
        id: change.local_id ?? change.key,
        farm_id: change.farm,
        status: 'open',
        created_at: now,
      });
    case '/v1/farms/{farm}/animals':
      return add('animal', {
        name: null,
        tag: null,
        eid: null,
        sex: null,
        breed: null,
        birth_date: null,
        group_id: null,
        paddock_id: null,
        status: 'active',
        notes: null,
        fields: {},
        ...body,
        id: change.local_id ?? change.key,
        farm_id: change.farm,
        species: String(body.species ?? ''),
        created_at: now,
      });
    case '/v1/farms/{farm}/events':
      return eventOf(change);
    case '/v1/farms/{farm}/treatments':
      // The withdrawal dates are the server's: the page says it is kept.
      return { data: [], queued: true };
    case '/v1/animals/{id}/weights':
      // The gains are the server's: the chute page says the weight is kept.
      return {
        animal_id: id,
        data: [],
        adg_kg_per_day: null,
        projected_kg: null,
        projected_at: null,
        queued: true,
      };
    default:
      return null;
  }
}

/** A queued event as the API shows an event. */
export function eventOf(change: Change): Schema<'Event'> {
  const body = change.body as Record<string, unknown>;
  return {
    id: change.key,
    farm_id: change.farm,
    type: String(body.type),
    subject_type: (body.subject_type as string | undefined) ?? null,
    subject_id: (body.subject_id as string | undefined) ?? null,
    data: (body.data as Record<string, unknown> | undefined) ?? {},
    at: String(body.at ?? change.made_at),
    created_at: change.made_at,
  };
}

/** Keeps a write for later and shows it on the phone at once (api() calls this offline). */
export async function queue(call: QueuedCall): Promise<unknown> {
  const db = await local();
  if (!db) throw new ApiError(0, 'network_error', t('api.not_kept'));
  const now = new Date();
  const body =
    call.template === '/v1/farms/{farm}/events' || call.template === '/v1/farms/{farm}/treatments'
      ? // An event keeps the time it happened, not the time it reaches the server.
        {
          ...(call.body as Record<string, unknown>),
          at: (call.body as { at?: string }).at ?? now.toISOString(),
        }
      : call.body;
  const creates = call.template === '/v1/farms/{farm}/animals' || call.template === '/v1/farms/{farm}/tasks';
  const said = await saidOf(db, { ...call, body });
  const change: Change = {
    key: call.key,
    seq: now.getTime() * 1000 + (seq++ % 1000),
    farm: call.path.farm ?? currentFarm() ?? '',
    method: call.method,
    template: call.template,
    path: call.path,
    body,
    said,
    // The words of the moment, for a console of an older version reading this queue; /sync says the change
    // from `said` (change-label.ts, which the field app does not load: it is the sync page's).
    label: t(said.key as MessageKey, {
      ...said.params,
      ...(typeof said.params.weight === 'number' ? { weight: qty(said.params.weight, 'kg') } : {}),
    }),
    made_at: now.toISOString(),
    state: 'waiting',
    message: null,
    first_sent_at: call.sent ? now.getTime() : null,
    synced_at: null,
    local_id: creates ? `local_${call.key}` : null,
    server_id: null,
  };
  await db.put('queue', change);
  const answer = await applyLocally(db, change);
  await countQueue();
  void requestBackgroundSync(currentPerson());
  return answer;
}
