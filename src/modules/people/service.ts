/**
 * Sign-in and sessions (docs/people.md); setup and invite links are in links.ts, people admin in admin.ts.
 * Session tokens are random and stored as SHA-256 hashes only; passwords as scrypt hashes (passwords.ts);
 * sign-in failures lock out an email or an address for a while (lockout.ts). Functions take `now`, so tests
 * can move the clock.
 */
import { createHash } from 'node:crypto';
import type { ApiCaller, SessionLookup } from '../../calls/callers.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { hashSecret, type KeyMode, randomToken } from '../../lib/secrets.ts';
import { DAY_MS, MINUTE_MS, toIso } from '../../lib/time.ts';
import { bucketsOf, checkLockout, clearFailures, FORGET_MS, recordFailure } from './lockout.ts';
import { checkPasswordRules, hashPassword, verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import {
  accountName,
  deleteIdleSessionsOf,
  deleteSession,
  deleteSessionsOf,
  findActiveSession,
  findPerson,
  findPersonByEmail,
  hasLiveFarm,
  insertSession,
  type PersonRow,
  pruneBookkeeping,
  sessionExists,
  setSessionMode,
  toPerson,
  touchSession,
  updatePerson,
} from './repository.ts';
import type { Person, PreferencesInput, Session } from './schemas.ts';

/** A session ends after this long unused. */
export const SESSION_IDLE_MS = 30 * DAY_MS;
/** last_seen_at moves at most this often, so reads do not all become writes. */
export const SESSION_TOUCH_MS = MINUTE_MS;
/** A setup or invite link works this long, once. */
export const SETUP_LINK_TTL_MS = DAY_MS;
/** Characters of a session or setup token (base62, about 256 bits). */
export const TOKEN_LENGTH = 43;
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

/** Whether the session still works (not ended, not idle too long): long-lived streams check it now and then. */
export function isSessionActive(db: Db, sessionId: string, now: number): Promise<boolean> {
  return sessionExists(db, sessionId, now - SESSION_IDLE_MS);
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
export async function openSession(db: Db, person: PersonRow, now: number): Promise<OpenedSession> {
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
 * unknown email costs the same scrypt work as a wrong password of `passwordCost` (what new hashes cost) and
 * gets the same answer.
 */
export async function signIn(
  db: Db,
  input: { email: string; password: string },
  address: string,
  now: number,
  passwordCost: number,
): Promise<OpenedSession> {
  const email = normalizeEmail(input.email);
  const buckets = bucketsOf(email, address);
  await checkLockout(db, buckets, now);
  const person = await findPersonByEmail(db, email);
  const ok = person
    ? await verifyPassword(input.password, person.password_hash)
    : await verifyAgainstDecoy(input.password, passwordCost);
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

/** PATCH /v1/me: the signed-in person's units and language (a key has no person: 401, as the session routes). */
export async function updatePreferences(db: Db, caller: ApiCaller, input: PreferencesInput): Promise<Person> {
  const person = await personOf(db, caller);
  const changes = {
    ...(input.units ? { units: input.units } : {}),
    ...(input.language ? { language: input.language } : {}),
  };
  await updatePerson(db, person.id, changes);
  return toPerson({ ...person, ...changes });
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

/**
 * Changes the caller's password (the current one checked, with lock-out; the new one hashed at
 * `passwordCost`) and ends their other sessions.
 */
export async function changePassword(
  db: Db,
  caller: ApiCaller,
  input: { current_password: string; new_password: string },
  address: string,
  now: number,
  passwordCost: number,
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
  const hash = await hashPassword(input.new_password, passwordCost);
  await inTransaction(db, async (trx) => {
    await updatePerson(trx, person.id, { password_hash: hash });
    await deleteSessionsOf(trx, person.id, session.sessionId);
  });
}

/**
 * The `people.prune` job: sessions past their idle expiry, setup links a day past theirs (kept that long so
 * a late click still reads "expired" rather than nothing in the logs), and forgotten sign-in failures.
 */
export function prunePeopleBookkeeping(db: Db, now: number) {
  return pruneBookkeeping(db, {
    sessionsSeenBefore: now - SESSION_IDLE_MS,
    linksExpiredBefore: now - DAY_MS,
    failuresBefore: now - FORGET_MS,
  });
}
