/**
 * Stays (docs/grazing.md): the record moves of animals and groups between paddocks leave (who was in which
 * paddock from when to when), and the figures a paddock gets from it: who is in it now (`occupied_by`),
 * when it was last left (`last_grazed_at`) and how long it has rested (`rest_days`).
 *
 * Below the modules that move things (events, animals, groups, paddocks, tasks, grazing): they call in here
 * when a move is logged, changed or deleted, or an animal or group is added in a paddock. This module reads
 * the move events' table itself and imports no module but records/, so none of them forms a circle with it;
 * logging a move and applying it (`recordMove`) is the events service's.
 */
import type { Insertable } from 'kysely';
import type { Db, Trx } from '../../db/schema.ts';
import type { GrazingStaysTable } from '../../db/tables/records.ts';
import { lockRows } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { parseJson } from '../../lib/json.ts';
import { CLOCK_AHEAD_MS } from '../records/inputs.ts';
import { referenceError } from '../records/references.ts';
import {
  findMovable,
  insertStay,
  lastLeftOf,
  type MovableKind,
  type MovableRow,
  movesOf,
  occupantsOf,
  paddocksOnFarm,
  replaceStays,
  setMovablePaddock,
  staysOf,
} from './repository.ts';
import type { Occupants } from './schemas.ts';

export type { MovableKind } from './repository.ts';

export const MOVE_EVENT = 'move';
const DAY_MS = 86_400_000;
const LOCKED_TABLE = { animal: 'animals', group: 'animal_groups' } as const;

export function isMovableKind(kind: string | null | undefined): kind is MovableKind {
  return kind === 'animal' || kind === 'group';
}

function member(value: unknown, key: string): { has: boolean; value: unknown } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { has: false, value: null };
  return { has: Object.hasOwn(value, key), value: (value as Record<string, unknown>)[key] };
}

/**
 * Where a `move` event sends its subject: `data.to_paddock_id` (a client's move), else `data.to.paddock_id`
 * (the moves a PATCH or a delete logs). A string is a paddock, null is off every paddock; undefined: the
 * event names no destination (a note logged as a move), and moves nothing.
 */
export function destinationOf(data: unknown): string | null | undefined {
  const direct = member(data, 'to_paddock_id');
  const nested = direct.has ? direct : member(member(data, 'to').value, 'paddock_id');
  if (!nested.has) return undefined;
  if (nested.value === null || typeof nested.value === 'string') return nested.value;
  return undefined;
}

/** Where a move logged by the service says its subject came from (`data.from.paddock_id`), if it says. */
function originOf(data: unknown): string | null | undefined {
  const from = member(member(data, 'from').value, 'paddock_id');
  if (!from.has) return undefined;
  return typeof from.value === 'string' ? from.value : null;
}

export interface MoveInput {
  subject_type: string | null;
  subject_id: string | null;
  data: Record<string, unknown>;
  at: number;
}

/**
 * Checks a `move` event before it is stored (a client's, or one `recordMove` logs). A move that names a destination (`data.to_paddock_id`,
 * or `data.to.paddock_id`) must be of an animal or group, to a paddock of the same farm (or null: off
 * every paddock), dated no later than now. Returns whether the event moves its subject.
 */
export async function checkMove(
  db: Db,
  farmId: string,
  type: string,
  input: MoveInput,
  now: number,
): Promise<boolean> {
  if (type !== MOVE_EVENT) return false;
  const direct = member(input.data, 'to_paddock_id');
  const nested = member(member(input.data, 'to').value, 'paddock_id');
  const movable = isMovableKind(input.subject_type) && Boolean(input.subject_id);
  // The form the service logs (`data.to.paddock_id`) moves only what a move can move; on a house's own
  // move (reason position) or any other subject it is a record, as it always was.
  if (!direct.has && !(nested.has && movable)) return false;
  const param = direct.has ? 'data.to_paddock_id' : 'data.to.paddock_id';
  const destination = destinationOf(input.data);
  if (destination === undefined) {
    const value = direct.has ? direct.value : nested.value;
    const shown = JSON.stringify(value) ?? String(value);
    throw invalid(param, `${param} must be a paddock id or null, not ${shown.slice(0, 60)}.`);
  }
  if (!movable) {
    throw invalid(
      'subject_id',
      `A move to a paddock (${param}) moves an animal or a group: give subject_id of one (subject_type animal or group).`,
    );
  }
  if (destination !== null && !(await paddocksOnFarm(db, farmId, [destination])).has(destination)) {
    throw referenceError('paddock', destination, param);
  }
  if (input.at > now + CLOCK_AHEAD_MS) {
    throw invalid('at', 'A move cannot be dated in the future; plan it as a task with paddock_id instead.');
  }
  return true;
}

/** A move as the replay reads it (id null: the first placement). */
interface Step {
  id: string | null;
  at: number;
  to: string | null;
  from: string | null | undefined;
}

/** A stay as the replay builds it. */
interface Span {
  paddock: string | null;
  from: number;
  until: number | null;
  moveId: string | null;
}

/**
 * The subject's stays from its moves in `at` order (ties in the order they were logged). Where it was
 * before them: its first placement as recorded (a stay no move began, written when it was added in a
 * paddock), or, with nothing recorded yet, where its first move says it came from, else where it is now,
 * since it was added. A paddock since deleted holds no stay.
 */
function replay(
  subject: MovableRow,
  stays: readonly { paddock_id: string; from_at: number; move_id: string | null }[],
  moves: readonly { id: string; data: string; at: number }[],
  existing: ReadonlySet<string>,
): { spans: Span[]; current: string | null } {
  const steps: Step[] = [];
  for (const m of moves) {
    const data = parseJson<unknown>(m.data, {});
    const to = destinationOf(data);
    if (to !== undefined) steps.push({ id: m.id, at: Number(m.at), to, from: originOf(data) });
  }
  const placed = stays.find((s) => s.move_id === null);
  const start = placed
    ? { paddock: placed.paddock_id, at: placed.from_at }
    : stays.length === 0
      ? { paddock: steps[0]?.from !== undefined ? steps[0].from : subject.paddock_id, at: subject.created_at }
      : null;
  // The placement is where the subject was before every move; a subject entered after the date of its
  // first move (a herd recorded today, its move of last week logged next) was there up to that move.
  const ordered = [...steps];
  if (start?.paddock) {
    const firstAt = steps[0]?.at ?? start.at;
    ordered.unshift({ id: null, at: Math.min(start.at, firstAt), to: start.paddock, from: undefined });
  }
  const spans: Span[] = [];
  let open = null as Span | null;
  for (const step of ordered) {
    const to = step.to !== null && existing.has(step.to) ? step.to : null;
    if (to === (open?.paddock ?? null)) continue;
    if (open) {
      open.until = step.at;
      spans.push(open);
    }
    open = to === null ? null : { paddock: to, from: step.at, until: null, moveId: step.id };
  }
  if (open) spans.push(open);
  return { spans, current: open?.paddock ?? null };
}

/**
 * Rebuilds an animal's or group's stays from its moves and sets its paddock_id to where the last of them
 * (by `at`) left it: a move logged late takes its place in the record instead of overriding a later one.
 * Locks the subject first, so two moves of one subject rebuild in turn. Runs in the caller's transaction.
 */
export async function rebuildStays(trx: Trx, farmId: string, kind: MovableKind, id: string): Promise<void> {
  await lockRows(trx, LOCKED_TABLE[kind], id);
  const subject = await findMovable(trx, farmId, kind, id);
  if (!subject) return;
  const [moves, stays] = await Promise.all([movesOf(trx, farmId, id), staysOf(trx, id)]);
  const named = new Set<string>();
  for (const m of moves) {
    const data = parseJson<unknown>(m.data, {});
    for (const p of [destinationOf(data), originOf(data)]) if (typeof p === 'string') named.add(p);
  }
  for (const s of stays) named.add(s.paddock_id);
  if (subject.paddock_id) named.add(subject.paddock_id);
  const existing = await paddocksOnFarm(trx, farmId, [...named]);
  const { spans, current } = replay(subject, stays, moves, existing);
  // Stays that survive keep their ids, so a page cursor into the history stays good.
  const ids = new Map(stays.map((s) => [`${s.paddock_id} ${s.from_at}`, s.id]));
  const rows: Insertable<GrazingStaysTable>[] = spans.map((span) => ({
    id: ids.get(`${span.paddock} ${span.from}`) ?? newId('stay', span.from),
    farm_id: farmId,
    paddock_id: span.paddock as string,
    subject_type: kind,
    subject_id: id,
    name: subject.name,
    from_at: span.from,
    until_at: span.until,
    move_id: span.moveId,
  }));
  await replaceStays(trx, id, rows);
  if (current !== subject.paddock_id) await setMovablePaddock(trx, kind, id, current);
}

/**
 * Records an animal or group added in a paddock: its first stay, from when it was added. Runs in the
 * caller's transaction.
 */
export async function recordPlacement(
  db: Db,
  kind: MovableKind,
  row: { id: string; farm_id: string; paddock_id: string | null; created_at: number; name: string },
): Promise<void> {
  if (!row.paddock_id) return;
  await insertStay(db, {
    id: newId('stay', row.created_at),
    farm_id: row.farm_id,
    paddock_id: row.paddock_id,
    subject_type: kind,
    subject_id: row.id,
    name: row.name,
    from_at: row.created_at,
    until_at: null,
    move_id: null,
  });
}

/** The subject a (possibly changed or deleted) move event was about, rebuilt when it is an animal or group. */
export async function rebuildStaysOf(
  trx: Trx,
  farmId: string,
  subject: { subject_type: string | null; subject_id: string | null },
): Promise<void> {
  if (isMovableKind(subject.subject_type) && subject.subject_id) {
    await rebuildStays(trx, farmId, subject.subject_type, subject.subject_id);
  }
}

/** What grazing adds to a paddock: who is in it, when it was last left, how long it has rested. */
export interface PaddockGrazing {
  occupied_by: Occupants;
  last_grazed_at: number | null;
  rest_days: number | null;
}

/** Whole days rested since it was last left; null while occupied or when it never was grazed. */
export function restDays(lastGrazedAt: number | null, occupied: boolean, now: number): number | null {
  if (occupied || lastGrazedAt === null) return null;
  return Math.max(0, Math.floor((now - lastGrazedAt) / DAY_MS));
}

export function isOccupied(occupants: Occupants): boolean {
  return occupants.groups.length + occupants.animals.length + occupants.houses.length > 0;
}

/** Who is in a paddock and when it was last left: the figures that do not move with the clock. */
export interface GrazingState {
  occupied_by: Occupants;
  last_grazed_at: number | null;
}

/**
 * Who is in these paddocks (all of one farm) and when each was last left. `last_grazed_at` is the later of
 * the value a person typed and the end of the paddock's last recorded stay: history moves it forward, and
 * a typed date later than the history (a grazing nobody recorded) still counts.
 */
export async function grazingState(
  db: Db,
  farmId: string,
  paddocks: readonly { id: string; last_grazed_at: number | null }[],
): Promise<Map<string, GrazingState>> {
  const ids = paddocks.map((p) => p.id);
  const [occupants, lastLeft] = await Promise.all([occupantsOf(db, farmId, ids), lastLeftOf(db, ids)]);
  const out = new Map<string, GrazingState>();
  for (const p of paddocks) {
    const left = lastLeft.get(p.id) ?? null;
    const typed = p.last_grazed_at === null ? null : Number(p.last_grazed_at);
    out.set(p.id, {
      occupied_by: occupants.get(p.id) ?? { groups: [], animals: [], houses: [] },
      last_grazed_at: left === null ? typed : typed === null ? left : Math.max(left, typed),
    });
  }
  return out;
}

/** The grazing figures of these paddocks (all of one farm) at `now`: `grazingState` and `rest_days`. */
export async function paddocksGrazing(
  db: Db,
  farmId: string,
  paddocks: readonly { id: string; last_grazed_at: number | null }[],
  now: number,
): Promise<Map<string, PaddockGrazing>> {
  const state = await grazingState(db, farmId, paddocks);
  const out = new Map<string, PaddockGrazing>();
  for (const [id, s] of state) {
    out.set(id, { ...s, rest_days: restDays(s.last_grazed_at, isOccupied(s.occupied_by), now) });
  }
  return out;
}
