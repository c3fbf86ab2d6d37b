/** People admin: list, invite, change a role, remove, with the last-owner guard (docs/people.md). */

import type { ApiCaller } from '../../calls/callers.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { forbidden, notFound } from '../../domain/errors.ts';
import { type Policy, policyWithin, ROLE_PRESETS, type RoleName } from '../../domain/permissions.ts';
import { guardLastOwner, invitePerson } from './links.ts';
import {
  deletePerson,
  deleteSessionsOf,
  findPerson,
  listPeopleOf,
  lockAccount,
  toPerson,
  updatePerson,
} from './repository.ts';
import type { Invite, PeopleList, Person } from './schemas.ts';

/** People are the account's, not a mode's: a test key, which never reaches anything live, cannot manage them. */
function requirePeopleAdmin(caller: ApiCaller): void {
  if (!caller.session && caller.mode === 'test') {
    throw forbidden(
      'A test key cannot manage people: a person signs in to live mode too. Use a live key or an owner’s session.',
    );
  }
}

/**
 * A person with a role reaches every farm of the account with the role's powers, so a caller may invite to a
 * role, move a person into or out of it, or remove a person holding it, only when its own access covers the
 * role's on every farm (a restricted key limited to `keys:write` cannot make an owner). 403 otherwise.
 */
function requireCovers(caller: ApiCaller, role: RoleName): void {
  const covers = caller.farms === null && policyWithin(ROLE_PRESETS[role] as Policy, caller.policy);
  if (!covers) {
    throw forbidden(
      `This key cannot manage a person with the ${role} role: a person's role reaches every farm of the account with its powers, and this key's permissions or farms are narrower. Use an unrestricted live key or an owner's session.`,
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
  requireCovers(caller, input.role);
  // An invite to one of the account's people resets their password: their present role must be covered too.
  return invitePerson(db, caller.accountId, input, publicUrl, now, (existing) =>
    requireCovers(caller, existing),
  );
}

export async function changeRole(db: Db, caller: ApiCaller, id: string, role: RoleName): Promise<Person> {
  requirePeopleAdmin(caller);
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, caller.accountId);
    const person = await findPerson(trx, caller.accountId, id);
    if (!person) throw notFound('person', id);
    requireCovers(caller, person.role);
    requireCovers(caller, role);
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
    requireCovers(caller, person.role);
    await guardLastOwner(trx, person, null);
    await deleteSessionsOf(trx, id);
    await deletePerson(trx, id);
  });
}
