/**
 * What notifications read of other modules' tables, each through its owner's repository: people
 * (people/repository.ts), farms (farms/repository.ts), alerts (alerts/repository.ts), a farm's custom rules
 * (rules/repository.ts: the names a person may mute). Only the members a notice needs are passed on (never
 * a password hash).
 */
import type { Db } from '../../db/schema.ts';
import type { LanguageName, UnitSystem } from '../../domain/display-units.ts';
import type { RoleName } from '../../domain/permissions.ts';
import { findAlertById } from '../alerts/repository.ts';
import { findFarmById, realFarmsOf } from '../farms/repository.ts';
import { findPersonById, listPeopleOf, type PersonRow as PeopleRow } from '../people/repository.ts';
import { findFarmRules } from '../rules/repository.ts';

export interface PersonRow {
  id: string;
  account_id: string;
  email: string;
  name: string | null;
  role: RoleName;
  /** How notices speak to the person (PATCH /v1/me). */
  units: UnitSystem;
  language: LanguageName;
}

function person(row: PeopleRow): PersonRow {
  return {
    id: row.id,
    account_id: row.account_id,
    email: row.email,
    name: row.name,
    role: row.role,
    units: row.units,
    language: row.language,
  };
}

export async function peopleOfAccount(db: Db, accountId: string): Promise<PersonRow[]> {
  return (await listPeopleOf(db, accountId)).map(person);
}

export async function personById(db: Db, personId: string): Promise<PersonRow | undefined> {
  const row = await findPersonById(db, personId);
  return row && person(row);
}

/** The account's farms a person is notified about: every farm but the sample farm (its alerts are simulated). */
export const notifiableFarms = realFarmsOf;

export const farmById = findFarmById;

export const alertById = findAlertById;

/** The names of a farm's custom rules (their alerts carry them as `rule`). */
export async function customRuleNames(db: Db, farmId: string): Promise<string[]> {
  return (await findFarmRules(db, farmId)).map((r) => r.name);
}
