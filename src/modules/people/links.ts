/**
 * One-time setup and invite links (docs/people.md): a random token, only its hash stored, usable once within
 * 24 hours. Using one creates the person (or sets a new password for one of the account's people) and signs
 * them in.
 */
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, conflict, invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { RoleName } from '../../domain/permissions.ts';
import { hashSecret, randomToken } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import { checkPasswordRules, hashPassword } from './passwords.ts';
import {
  accountName,
  countOwners,
  deleteSessionsOf,
  findPersonByEmail,
  findUsableSetupLink,
  insertPerson,
  insertSetupLink,
  lockAccount,
  type PersonRow,
  updatePerson,
  useSetupLink,
} from './repository.ts';
import type { Invite, Setup, SetupInput } from './schemas.ts';
import {
  normalizeEmail,
  type OpenedSession,
  openSession,
  SETUP_LINK_TTL_MS,
  TOKEN_LENGTH,
} from './service.ts';
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
export async function guardLastOwner(db: Db, person: PersonRow, newRole: RoleName | null): Promise<void> {
  if (person.role !== 'owner' || newRole === 'owner') return;
  if ((await countOwners(db, person.account_id)) <= 1) {
    throw conflict(
      newRole === null
        ? 'This is the account’s last owner; make someone else an owner first.'
        : 'This is the account’s last owner; make someone else an owner before changing this role.',
    );
  }
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
  /** Called with the role of the account's person the email already names (their password is reset). */
  mayReset: (role: RoleName) => void = () => {},
): Promise<Invite> {
  const email = normalizeEmail(input.email);
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, accountId);
    const existing = await findPersonByEmail(trx, email);
    if (existing && existing.account_id !== accountId) {
      throw conflict('This email already belongs to a person of another account.', 'email');
    }
    if (existing) {
      mayReset(existing.role);
      await guardLastOwner(trx, existing, input.role);
    }
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
  passwordCost: number,
): Promise<OpenedSession> {
  const link = await findUsableSetupLink(db, hashSecret(token), now);
  if (!link) throw linkGone();
  const email = link.email ?? (input.email ? normalizeEmail(input.email) : null);
  if (!email) throw invalid('email', 'This link names no email: send the email to sign in with.');
  if (link.email && input.email && normalizeEmail(input.email) !== link.email) {
    throw invalid('email', `This link is for ${link.email}; leave email out or send that one.`);
  }
  checkPasswordRules(input.password, 'password');
  const hash = await hashPassword(input.password, passwordCost);
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
        // Proposed by the console from the browser's locale; the person changes them on their Account page.
        units: input.units ?? 'metric',
        language: input.language ?? 'en',
      };
      await insertPerson(trx, person);
    }
    return openSession(trx, person, now);
  });
}
