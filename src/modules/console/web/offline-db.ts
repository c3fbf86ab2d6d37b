/**
 * The person's IndexedDB database on the phone (docs/offline.md), through idb: one database per signed-in
 * person (`farmstead-<person id>`): `meta` (the boot, each farm's brief, houses and "as of"), `records` (by
 * farm and kind: animals, tasks, alerts, groups, paddocks, medicines, devices; in the order the server
 * listed them) and `queue` (the changes kept for later). Which person and farm this tab shows is kept here
 * too.
 */
import { deleteDB, type IDBPDatabase, openDB } from 'idb';
import type { Schema } from './api.ts';
import { set } from './offline-status.ts';
import { type Change, databaseOf, type Kind } from './queue-send.ts';

export type Local = IDBPDatabase;

/** What each kind of record the phone keeps is: the API's schema of it. */
export interface KindData {
  animal: Schema<'Animal'>;
  task: Schema<'Task'>;
  alert: Schema<'Alert'>;
  group: Schema<'Group'>;
  paddock: Schema<'Paddock'>;
  medicine: Schema<'Medicine'>;
  /** Without its `state` (offline-refresh.ts): the houses list keeps the houses' state. */
  device: Schema<'Device'>;
}

/** The person whose data this tab shows (also read before sign-in, to start offline). */
const PERSON_KEY = 'farmstead.person';

let person: string | null = null;
let farmId: string | null = null;
let opened: Promise<Local> | null = null;

function openLocal(id: string): Promise<Local> {
  return openDB(databaseOf(id), 1, {
    upgrade(db) {
      db.createObjectStore('meta');
      const records = db.createObjectStore('records', { keyPath: 'key' });
      records.createIndex('farmKind', ['farm', 'kind']);
      db.createObjectStore('queue', { keyPath: 'key' });
    },
  });
}

/** The signed-in person's database, or null before sign-in. */
export function local(): Promise<Local> | null {
  return opened;
}

/** The signed-in person's id, or null. */
export function currentPerson(): string | null {
  return person;
}

/** The farm the console shows, or null. */
export function currentFarm(): string | null {
  return farmId;
}

/** Starts the field app for a signed-in person (their own database) and a farm. */
export async function startLocal(personId: string, farm: string | null): Promise<void> {
  if (person !== personId) {
    person = personId;
    opened = openLocal(personId);
    localStorage.setItem(PERSON_KEY, personId);
  }
  await chooseLocalFarm(farm);
}

/** The chosen farm changed: its "as of" and the queue's counts (the app then syncs, when online). */
export async function chooseLocalFarm(farm: string | null): Promise<void> {
  farmId = farm;
  const db = await local();
  if (!db) return;
  set({ asOf: farm ? ((await db.get('meta', `asof:${farm}`)) ?? null) : null });
  await countQueue();
}

export interface Boot {
  session: Schema<'Session'>;
  farms: Schema<'Farm'>[];
  farmId: string | null;
}

/**
 * Keeps what starting the console needs (session, farms) for a start without a network. (The catalog, which
 * the houses page needs, is kept apart by the refresh: offline-refresh.ts.)
 */
export async function keepBoot(boot: Boot): Promise<void> {
  const db = await local();
  await db?.put('meta', boot, 'boot');
}

/** What the last person signed in on this phone kept for starting offline, or null. */
export async function offlineBoot(): Promise<Boot | null> {
  const id = localStorage.getItem(PERSON_KEY);
  if (!id) return null;
  const db = await openLocal(id);
  const boot = (await db.get('meta', 'boot')) as Boot | undefined;
  db.close();
  if (!boot) return null;
  await startLocal(id, boot.farmId);
  set({ online: false });
  return boot;
}

/** Signing out: deletes this person's database (data and queue) and forgets them on this phone. */
export async function forgetLocal(): Promise<void> {
  const id = person ?? localStorage.getItem(PERSON_KEY);
  const db = await local();
  db?.close();
  opened = null;
  person = null;
  localStorage.removeItem(PERSON_KEY);
  if (id) await deleteDB(databaseOf(id));
  set({ asOf: null, waiting: 0, attention: 0 });
}

/** A farm's records of one kind, in the order the server listed them, as the API gave them. */
export async function keptRecords<K extends Kind>(db: Local, farm: string, kind: K): Promise<KindData[K][]> {
  // The records store holds what the refresh and the queue put there: the API's answers for the kind.
  const all: { order: number; data: KindData[K] }[] = await db.getAllFromIndex('records', 'farmKind', [
    farm,
    kind,
  ]);
  return all.sort((a, b) => a.order - b.order).map((r) => r.data);
}

/** The queue's counts on the banner: changes waiting, and changes needing attention. */
export async function countQueue(): Promise<void> {
  const db = await local();
  if (!db) return;
  const all = (await db.getAll('queue')) as Change[];
  set({
    waiting: all.filter((c) => c.state === 'waiting').length,
    attention: all.filter((c) => c.state === 'attention').length,
  });
}

/** Changes on the phone the server has not taken yet (waiting or needing attention). */
export async function unsyncedCount(): Promise<number> {
  const db = await local();
  if (!db) return 0;
  const all = (await db.getAll('queue')) as Change[];
  return all.filter((c) => c.state !== 'synced').length;
}
