/**
 * People, sign-in, sessions and setup links (docs/people.md). Tokens (session cookies, setup links) are
 * random and stored as SHA-256 hashes only; passwords as scrypt hashes (passwords.ts); sign-in failures
 * lock out an email or an address for a while (lockout.ts). Every function takes `now` so tests can move
 * the clock.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { RoleName } from '../../domain/permissions.ts';
import type { ApiCaller, SessionLookup } from '../../http/auth.ts';
import { AppError, conflict, invalid, notFound } from '../../http/errors.ts';
import { forbidden } from '../../http/permissions.ts';
import { newId } from '../../lib/ids.ts';
import { hashSecret, type KeyMode, randomToken } from '../../lib/secrets.ts';
import { DAY_MS, MINUTE_MS, toIso } from '../../lib/time.ts';
import { bucketsOf, checkLockout, clearFailures, recordFailure } from './lockout.ts';
import { checkPasswordRules, hashPassword, verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import {
  accountName,
  countOwners,
  deleteIdleSessionsOf,
  deletePerson,
  deleteSession,
  deleteSessionsOf,
  findActiveSession,
  findPerson,
  findPersonByEmail,
  findUsableSetupLink,
  hasLiveFarm,
  insertPerson,
  insertSession,
  insertSetupLink,
  listPeopleOf,
  type PersonRow,
  setSessionMode,
  toPerson,
  touchSession,
  updatePerson,
  useSetupLink,
} from './repository.ts';
import type { Invite, PeopleList, Person, Session, Setup, SetupInput } from './schemas.ts';

/** A session ends after this long unused. */
export const SESSION_IDLE_MS = 30 * DAY_MS;
/** last_seen_at moves at most this often, so reads do not all become writes. */
export const SESSION_TOUCH_MS = MINUTE_MS;
/** A setup or invite link works this long, once. */
export const SETUP_LINK_TTL_MS = DAY_MS;
const TOKEN_LENGTH = 43;
const TOKEN_PATTERN = /^[0-9A-Za-z]{43}$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The session's CSRF token: derived from its cookie token (one-way), so nothing more is stored. */
export function csrfTokenOf(token: string): string {
  return createHash('sha256').update(`farmstead-csrf:${token}`).digest('base64url');
}

/** The auth hook's session lookup: the session and its person, its last use moved on (at most once a minute). */
export async function authenticateSession(db: Db, token: string, now: number): Promise<SessionLookup | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const found = await findActiveSession(db, hashSecret(token), now - SESSION_IDLE_MS);
  if (!found) return null;
  let lastSeenAt = found.session.last_seen_at;
  if (now - lastSeenAt >= SESSION_TOUCH_MS) {
    await touchSession(db, found.session.id, now);
    lastSeenAt = now;
  }
  return {
    sessionId: found.session.id,
    personId: found.person.id,
    email: found.person.email,
    role: found.person.role,
    lastSeenAt,
    accountId: found.session.account_id,
    mode: found.session.mode,
  };
}

/** A new session's cookie token and the Session object. */
export interface OpenedSession {
  token: string;
  session: Session;
}

async function sessionObject(
  db: Db,
  person: Person,
  accountId: string,
  mode: KeyMode,
  csrfToken: string,
  lastSeenAt: number,
): Promise<Session> {
  return {
    object: 'session',
    person,
    account: { id: accountId, name: await accountName(db, accountId) },
    mode,
    csrf_token: csrfToken,
    expires_at: toIso(lastSeenAt + SESSION_IDLE_MS),
  };
}

/** Opens a session for the person: live mode when the account has a live farm, else test (the sample farm). */
async function openSession(db: Db, person: PersonRow, now: number): Promise<OpenedSession> {
  const token = randomToken(TOKEN_LENGTH);
  const mode: KeyMode = (await hasLiveFarm(db, person.account_id)) ? 'live' : 'test';
  await deleteIdleSessionsOf(db, person.id, now - SESSION_IDLE_MS);
  await insertSession(db, {
    id: newId('session', now),
    token_hash: hashSecret(token),
    person_id: person.id,
    account_id: person.account_id,
    mode,
    created_at: now,
    last_seen_at: now,
  });
  await updatePerson(db, person.id, { last_sign_in_at: now });
  const view = toPerson({ ...person, last_sign_in_at: now });
  return { token, session: await sessionObject(db, view, person.account_id, mode, csrfTokenOf(token), now) };
}

const WRONG_CREDENTIALS = 'The email or password is not right.';

/**
 * Signs a person in. Locked-out emails and addresses are refused before the password is checked (429); an
 * unknown email costs the same scrypt work as a wrong password and gets the same answer.
 */
export async function signIn(
  db: Db,
  input: { email: string; password: string },
  address: string,
  now: number,
): Promise<OpenedSession> {
  const email = normalizeEmail(input.email);
  const buckets = bucketsOf(email, address);
  await checkLockout(db, buckets, now);
  const person = await findPersonByEmail(db, email);
  const ok = person
    ? await verifyPassword(input.password, person.password_hash)
    : await verifyAgainstDecoy(input.password);
  if (!person || !ok) {
    await recordFailure(db, buckets, now);
    throw new AppError('unauthorized', WRONG_CREDENTIALS);
  }
  await clearFailures(db, buckets);
  return openSession(db, person, now);
}

/** The session of a session caller; a key (or no session) is 401. */
export function requireSession(caller: ApiCaller): NonNullable<ApiCaller['session']> {
  if (!caller.session) {
    throw new AppError(
      'unauthorized',
      'This endpoint needs a console session cookie, not an API key: sign in with POST /v1/session.',
    );
  }
  return caller.session;
}

async function personOf(db: Db, caller: ApiCaller): Promise<PersonRow> {
  const session = requireSession(caller);
  const person = await findPerson(db, caller.accountId, session.personId);
  if (!person) throw new AppError('unauthorized', 'This session’s person no longer exists.');
  return person;
}

export async function getSession(db: Db, caller: ApiCaller): Promise<Session> {
  const session = requireSession(caller);
  const person = await personOf(db, caller);
  return sessionObject(
    db,
    toPerson(person),
    caller.accountId,
    caller.mode,
    session.csrfToken,
    session.lastSeenAt,
  );
}

export async function signOut(db: Db, caller: ApiCaller): Promise<void> {
  await deleteSession(db, requireSession(caller).sessionId);
}

/** The test-mode switch: the session now shows and acts on the account's farms of `mode`. */
export async function switchMode(db: Db, caller: ApiCaller, mode: KeyMode): Promise<Session> {
  const session = requireSession(caller);
  await setSessionMode(db, session.sessionId, mode);
  return getSession(db, { ...caller, mode });
}

/** Changes the caller's password (the current one checked, with lock-out) and ends their other sessions. */
export async function changePassword(
  db: Db,
  caller: ApiCaller,
  input: { current_password: string; new_password: string },
  address: string,
  now: number,
): Promise<void> {
  const session = requireSession(caller);
  const person = await personOf(db, caller);
  const buckets = bucketsOf(person.email, address);
  await checkLockout(db, buckets, now);
  if (!(await verifyPassword(input.current_password, person.password_hash))) {
    await recordFailure(db, buckets, now);
    throw invalid('current_password', 'The current password is not right.');
  }
  checkPasswordRules(input.new_password, 'new_password');
  const hash = await hashPassword(input.new_password);
  await inTransaction(db, async (trx) => {
    await updatePerson(trx, person.id, { password_hash: hash });
    await deleteSessionsOf(trx, person.id, session.sessionId);
  });
}

// ---- setup and invite links ----

export function setupUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/setup/${token}`;
}

function linkGone(): AppError {
  return new AppError(
    'not_found',
    'This setup link is unknown, already used, or expired (links work once, for 24 hours). Ask an owner for a new one, or run `npm run cli -- people invite`.',
    { kind: 'setup' },
  );
}

/** A one-time link for the account: `email` null lets the person choose it (the first owner's link). */
export async function createSetupLink(
  db: Db,
  input: { accountId: string; email: string | null; role: RoleName },
  now: number,
): Promise<{ token: string; expiresAt: number }> {
  const token = randomToken(TOKEN_LENGTH);
  const expiresAt = now + SETUP_LINK_TTL_MS;
  await insertSetupLink(db, {
    id: newId('setup', now),
    token_hash: hashSecret(token),
    account_id: input.accountId,
    email: input.email,
    role: input.role,
    created_at: now,
    expires_at: expiresAt,
    used_at: null,
  });
  return { token, expiresAt };
}

/**
 * Refuses a role change that would leave the account without an owner (409). Callers lock the account row
 * first, so two changes at once cannot each see the other owner.
 */
async function guardLastOwner(db: Db, person: PersonRow, newRole: RoleName | null): Promise<void> {
  if (person.role !== 'owner' || newRole === 'owner') return;
  if ((await countOwners(db, person.account_id)) <= 1) {
    throw conflict(
      newRole === null
        ? 'This is the account’s last owner; make someone else an owner first.'
        : 'This is the account’s last owner; make someone else an owner before changing this role.',
    );
  }
}

/** Locks the account row (a no-op write), serialising the people changes of one account. */
async function lockAccount(trx: Db, accountId: string): Promise<void> {
  await trx.updateTable('accounts').set({ name: sql`name` }).where('id', '=', accountId).execute();
}

/**
 * An invite: a setup link for this email and role. An email of another account's person is 409; one of
 * this account's people makes a link that sets a new password for them (the way back in).
 */
export async function invitePerson(
  db: Db,
  accountId: string,
  input: { email: string; role: RoleName },
  publicUrl: string,
  now: number,
): Promise<Invite> {
  const email = normalizeEmail(input.email);
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, accountId);
    const existing = await findPersonByEmail(trx, email);
    if (existing && existing.account_id !== accountId) {
      throw conflict('This email already belongs to a person of another account.', 'email');
    }
    if (existing) await guardLastOwner(trx, existing, input.role);
    const link = await createSetupLink(trx, { accountId, email, role: input.role }, now);
    return {
      object: 'invite' as const,
      url: setupUrl(publicUrl, link.token),
      email,
      role: input.role,
      expires_at: toIso(link.expiresAt),
    };
  });
}

export async function describeSetupLink(db: Db, token: string, now: number): Promise<Setup> {
  const link = await findUsableSetupLink(db, hashSecret(token), now);
  if (!link) throw linkGone();
  return {
    object: 'setup',
    email: link.email,
    role: link.role,
    account: { id: link.account_id, name: await accountName(db, link.account_id) },
    expires_at: toIso(link.expires_at),
  };
}

/**
 * Uses a setup link: creates the person (or, for one of the account's people, sets their new password and
 * the link's role, ending their other sessions) and signs them in. The link is used up in the same
 * transaction, so two requests with one link make one person.
 */
export async function completeSetup(
  db: Db,
  token: string,
  input: SetupInput,
  now: number,
): Promise<OpenedSession> {
  const link = await findUsableSetupLink(db, hashSecret(token), now);
  if (!link) throw linkGone();
  const email = link.email ?? (input.email ? normalizeEmail(input.email) : null);
  if (!email) throw invalid('email', 'This link names no email: send the email to sign in with.');
  if (link.email && input.email && normalizeEmail(input.email) !== link.email) {
    throw invalid('email', `This link is for ${link.email}; leave email out or send that one.`);
  }
  checkPasswordRules(input.password, 'password');
  const hash = await hashPassword(input.password);
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, link.account_id);
    if (!(await useSetupLink(trx, link.id, now))) throw linkGone();
    const existing = await findPersonByEmail(trx, email);
    let person: PersonRow;
    if (existing && existing.account_id !== link.account_id) {
      throw conflict('This email already belongs to a person of another account.', 'email');
    } else if (existing) {
      await guardLastOwner(trx, existing, link.role);
      const name = input.name ?? existing.name;
      await updatePerson(trx, existing.id, { password_hash: hash, role: link.role, name });
      await deleteSessionsOf(trx, existing.id);
      person = { ...existing, password_hash: hash, role: link.role, name };
    } else {
      person = {
        id: newId('person', now),
        account_id: link.account_id,
        email,
        name: input.name ?? null,
        role: link.role,
        password_hash: hash,
        created_at: now,
        last_sign_in_at: null,
      };
      await insertPerson(trx, person);
    }
    return openSession(trx, person, now);
  });
}

// ---- people admin ----

/** People are the account's, not a mode's: a test key, which never reaches anything live, cannot manage them. */
function requirePeopleAdmin(caller: ApiCaller): void {
  if (!caller.session && caller.mode === 'test') {
    throw forbidden(
      'A test key cannot manage people: a person signs in to live mode too. Use a live key or an owner’s session.',
    );
  }
}

export async function peopleOfAccount(db: Db, accountId: string): Promise<PeopleList> {
  const rows = await listPeopleOf(db, accountId);
  return { object: 'list', data: rows.map(toPerson) };
}

export async function listPeople(db: Db, caller: ApiCaller): Promise<PeopleList> {
  requirePeopleAdmin(caller);
  return peopleOfAccount(db, caller.accountId);
}

export async function inviteFromApi(
  db: Db,
  caller: ApiCaller,
  input: { email: string; role: RoleName },
  publicUrl: string,
  now: number,
): Promise<Invite> {
  requirePeopleAdmin(caller);
  return invitePerson(db, caller.accountId, input, publicUrl, now);
}

export async function changeRole(db: Db, caller: ApiCaller, id: string, role: RoleName): Promise<Person> {
  requirePeopleAdmin(caller);
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, caller.accountId);
    const person = await findPerson(trx, caller.accountId, id);
    if (!person) throw notFound('person', id);
    await guardLastOwner(trx, person, role);
    await updatePerson(trx, id, { role });
    return toPerson({ ...person, role });
  });
}

/** Removes a person; their sessions end with them. The last owner is refused (409). */
export async function removePerson(db: Db, caller: ApiCaller, id: string): Promise<void> {
  requirePeopleAdmin(caller);
  await inTransaction(db, async (trx) => {
    await lockAccount(trx, caller.accountId);
    const person = await findPerson(trx, caller.accountId, id);
    if (!person) throw notFound('person', id);
    await guardLastOwner(trx, person, null);
    await deleteSessionsOf(trx, id);
    await deletePerson(trx, id);
  });
}
