import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { PeopleTable, SessionsTable, SetupLinksTable } from '../../db/tables/people.ts';
import type { KeyMode } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import type { Person } from './schemas.ts';

export type PersonRow = Selectable<PeopleTable>;
export type SessionRow = Selectable<SessionsTable>;
export type SetupLinkRow = Selectable<SetupLinksTable>;

export function toPerson(row: PersonRow): Person {
  return {
    id: row.id,
    object: 'person',
    email: row.email,
    name: row.name,
    role: row.role,
    created_at: toIso(row.created_at),
    last_sign_in_at: toIso(row.last_sign_in_at),
    units: row.units ?? 'metric',
    language: row.language ?? 'en',
  };
}

export async function findPersonByEmail(db: Db, email: string): Promise<PersonRow | undefined> {
  return db.selectFrom('people').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findPerson(db: Db, accountId: string, id: string): Promise<PersonRow | undefined> {
  return db
    .selectFrom('people')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** A person by id, whatever their account (a notification or an acknowledge token names only the person). */
export async function findPersonById(db: Db, id: string): Promise<PersonRow | undefined> {
  return db.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listPeopleOf(db: Db, accountId: string): Promise<PersonRow[]> {
  return db.selectFrom('people').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export async function countOwners(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('people')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function accountName(db: Db, accountId: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirst();
  return row?.name ?? '';
}

/** Whether the account has a live farm (a new session opens in live mode then, else in test mode). */
export async function hasLiveFarm(db: Db, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('farms')
    .select('id')
    .where('account_id', '=', accountId)
    .where('mode', '=', 'live')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface ActiveSession {
  session: SessionRow;
  person: PersonRow;
}

/** The session with this token hash and its person, if it was seen after `seenAfter`. */
export async function findActiveSession(
  db: Db,
  tokenHash: string,
  seenAfter: number,
): Promise<ActiveSession | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('people', 'people.id', 'sessions.person_id')
    .select([
      'sessions.id as session_id',
      'sessions.token_hash',
      'sessions.mode',
      'sessions.created_at as session_created_at',
      'sessions.last_seen_at',
      'people.id',
      'people.account_id',
      'people.email',
      'people.name',
      'people.role',
      'people.password_hash',
      'people.created_at',
      'people.last_sign_in_at',
      'people.units',
      'people.language',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.last_seen_at', '>', seenAfter)
    .executeTakeFirst();
  if (!row) return undefined;
  const { session_id, token_hash, mode, session_created_at, last_seen_at, ...person } = row;
  return {
    session: {
      id: session_id,
      token_hash,
      person_id: person.id,
      account_id: person.account_id,
      mode,
      created_at: Number(session_created_at),
      last_seen_at: Number(last_seen_at),
    },
    person: { ...person, created_at: Number(person.created_at) },
  };
}

export async function sessionExists(db: Db, id: string, seenAfter: number): Promise<boolean> {
  const row = await db
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', id)
    .where('last_seen_at', '>', seenAfter)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function touchSession(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function setSessionMode(db: Db, id: string, mode: KeyMode): Promise<void> {
  await db.updateTable('sessions').set({ mode }).where('id', '=', id).execute();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Ends the person's sessions, except `keep` (the one that changed the password). */
export async function deleteSessionsOf(db: Db, personId: string, keep: string | null = null): Promise<void> {
  let query = db.deleteFrom('sessions').where('person_id', '=', personId);
  if (keep) query = query.where('id', '!=', keep);
  await query.execute();
}

/** Removes the person's sessions idle since before `seenBefore` (done when they sign in again). */
export async function deleteIdleSessionsOf(db: Db, personId: string, seenBefore: number): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('person_id', '=', personId)
    .where('last_seen_at', '<=', seenBefore)
    .execute();
}

export async function insertSetupLink(db: Db, row: SetupLinkRow): Promise<void> {
  await db.insertInto('setup_links').values(row).execute();
}

/** The link with this token hash if it is unused and unexpired at `now`. */
export async function findUsableSetupLink(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<SetupLinkRow | undefined> {
  return db
    .selectFrom('setup_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Marks the link used if it still is usable; false when another request used it first. */
export async function useSetupLink(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('setup_links')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertPerson(db: Db, row: Insertable<PeopleTable>): Promise<void> {
  await db.insertInto('people').values(row).execute();
}

export async function updatePerson(
  db: Db,
  id: string,
  changes: Partial<
    Pick<PersonRow, 'name' | 'role' | 'password_hash' | 'last_sign_in_at' | 'units' | 'language'>
  >,
): Promise<void> {
  await db.updateTable('people').set(changes).where('id', '=', id).execute();
}

export async function deletePerson(db: Db, id: string): Promise<void> {
  await db.deleteFrom('people').where('id', '=', id).execute();
}

/** Locks the account row (a no-op write), serialising the people changes of one account. */
export async function lockAccount(trx: Db, accountId: string): Promise<void> {
  await trx.updateTable('accounts').set({ name: sql`name` }).where('id', '=', accountId).execute();
}

/** The sign-in failure buckets among `buckets` whose last failure came after `lastAfter` (lockout.ts). */
export async function signInFailures(
  db: Db,
  buckets: readonly string[],
  lastAfter: number,
): Promise<Array<{ bucket: string; count: number; lastAt: number }>> {
  const rows = await db
    .selectFrom('sign_in_failures')
    .selectAll()
    .where('bucket', 'in', buckets)
    .where('last_at', '>', lastAfter)
    .execute();
  return rows.map((row) => ({ bucket: row.bucket, count: Number(row.count), lastAt: Number(row.last_at) }));
}

/**
 * Counts one failure in the bucket: one more when its last failure came after `forgetBefore`, else a
 * new count from 1.
 */
export async function countSignInFailure(
  db: Db,
  bucket: string,
  now: number,
  forgetBefore: number,
): Promise<void> {
  await db
    .insertInto('sign_in_failures')
    .values({ bucket, count: 1, first_at: now, last_at: now })
    .onConflict((oc) =>
      oc.column('bucket').doUpdateSet({
        count: sql`case when sign_in_failures.last_at > ${forgetBefore} then sign_in_failures.count + 1 else 1 end`,
        first_at: sql`case when sign_in_failures.last_at > ${forgetBefore} then sign_in_failures.first_at else excluded.first_at end`,
        last_at: sql`excluded.last_at`,
      }),
    )
    .execute();
}

export async function deleteSignInFailures(db: Db, bucket: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('bucket', '=', bucket).execute();
}

/** Removes sessions idle since `sessionsSeenBefore`, links expired before `linksExpiredBefore`, and forgotten failures. */
export async function pruneBookkeeping(
  db: Db,
  cutoffs: { sessionsSeenBefore: number; linksExpiredBefore: number; failuresBefore: number },
): Promise<{ sessions: number; links: number; failures: number }> {
  const sessions = await db
    .deleteFrom('sessions')
    .where('last_seen_at', '<=', cutoffs.sessionsSeenBefore)
    .executeTakeFirst();
  const links = await db
    .deleteFrom('setup_links')
    .where('expires_at', '<', cutoffs.linksExpiredBefore)
    .executeTakeFirst();
  const failures = await db
    .deleteFrom('sign_in_failures')
    .where('last_at', '<', cutoffs.failuresBefore)
    .executeTakeFirst();
  return {
    sessions: Number(sessions.numDeletedRows),
    links: Number(links.numDeletedRows),
    failures: Number(failures.numDeletedRows),
  };
}
