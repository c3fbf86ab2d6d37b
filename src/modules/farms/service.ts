import { mergedFreeFormJson } from '../../calls/input-rules.ts';
import { forgetFarmDevices } from '../../calls/key-cache.ts';
import { BUS_CHANNELS, notify } from '../../db/notify.ts';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { validateBreedingSettings } from '../../domain/breeding.ts';
import { AppError, conflict, invalid, notFound } from '../../domain/errors.ts';
import { ESCALATION_TARGETS, escalationOf, validateEscalation } from '../../domain/escalation.ts';
import { newId } from '../../domain/ids.ts';
import { allows, describePermission, type Policy, permission } from '../../domain/permissions.ts';
import { validateRuleOverrides } from '../../domain/rule-overrides.ts';
import { validateWeightSettings } from '../../domain/weights.ts';
import { validateWithdrawalSettings } from '../../domain/withdrawal.ts';
import { isPlainObject, parseJson } from '../../lib/json.ts';
import { zoneAt } from '../../lib/zone-lookup.ts';
import { listPeopleOf } from '../people/repository.ts';
import { type FarmRow, requireFarm, type Scope } from './access.ts';
import { deleteFarmRow, farmsInScope, insertFarm, toFarm, updateFarmRow } from './repository.ts';
import type { CreateFarmInput, Farm, UpdateFarmInput } from './schemas.ts';

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function checkTimezone(tz: string): string {
  if (!isValidTimezone(tz)) {
    throw invalid(
      'timezone',
      `timezone "${tz}" is not an IANA time zone (for example America/Chicago or UTC).`,
    );
  }
  return tz;
}

/** Who creates or changes a farm: its scope and, for a key or a signed-in person, its policy (the CLI has none). */
export type FarmCaller = Scope & { policy?: Policy };

/**
 * `settings.rules` are the farm's alert rules (the `rules` resource, alerts family): a key that may write
 * farms but not rules must not change them there either, which would silence alerts it may not touch.
 */
function checkRulesAccess(caller: FarmCaller, settings: Record<string, unknown> | null | undefined): void {
  if (!caller.policy || !settings || !Object.hasOwn(settings, 'rules')) return;
  const need = permission('rules', 'write');
  if (allows(caller.policy, need)) return;
  throw new AppError(
    'forbidden',
    `settings.rules are the farm's alert rules, which need ${describePermission(need)}; this key lacks it (send settings without rules).`,
    { param: 'settings.rules' },
  );
}

/**
 * Validates `settings` as a whole: `rules` must be valid overrides, `escalation` a chain, `withdrawal` the herd
 * book's rules (src/domain/withdrawal.ts), `weights` the brief's gain threshold and weighing interval
 * (src/domain/weights.ts), `breeding` its gestation and cycle days (src/domain/breeding.ts); other members are
 * kept as given.
 */
export function checkSettings(settings: Record<string, unknown>): Record<string, unknown> {
  if (settings.escalation !== undefined && settings.escalation !== null) {
    const escalation = validateEscalation(settings.escalation);
    if (!escalation.ok) throw invalid(escalation.param, escalation.message);
    settings = { ...settings, escalation: escalation.value };
  }
  if (settings.withdrawal !== undefined && settings.withdrawal !== null) {
    const withdrawal = validateWithdrawalSettings(settings.withdrawal);
    if (!withdrawal.ok) throw invalid(withdrawal.param, withdrawal.message);
    settings = { ...settings, withdrawal: withdrawal.value };
  }
  if (settings.weights !== undefined && settings.weights !== null) {
    const weights = validateWeightSettings(settings.weights);
    if (!weights.ok) throw invalid(weights.param, weights.message);
    settings = { ...settings, weights: weights.value };
  }
  if (settings.breeding !== undefined && settings.breeding !== null) {
    const breeding = validateBreedingSettings(settings.breeding);
    if (!breeding.ok) throw invalid(breeding.param, breeding.message);
    settings = { ...settings, breeding: breeding.value };
  }
  if (settings.rules !== undefined && settings.rules !== null) {
    const result = validateRuleOverrides(settings.rules);
    if (!result.ok) throw invalid(result.param, result.message);
    return { ...settings, rules: result.value };
  }
  const { rules: _dropped, ...rest } = settings;
  return rest;
}

/** A settings PATCH that sets an escalation chain: every person it names must be one of the account's people. */
async function checkEscalationPeople(db: Db, accountId: string, settings: Record<string, unknown>) {
  const chain = escalationOf(settings);
  if (!chain || settings.escalation === undefined) return;
  const people = await listPeopleOf(db, accountId);
  for (const [i, step] of chain.steps.entries()) {
    if ((ESCALATION_TARGETS as readonly string[]).includes(step.notify)) continue;
    if (!people.some((p) => p.id === step.notify)) {
      throw invalid(
        `settings.escalation.steps[${i}].notify`,
        `settings.escalation.steps[${i}].notify names ${step.notify}, who is not one of this account's people.`,
      );
    }
  }
}

export async function listFarms(db: Db, scope: Scope, page: PageRequest): Promise<Page<Farm>> {
  return fetchPage(farmsInScope(db, scope), page, toFarm);
}

export async function getFarm(db: Db, scope: Scope, farmId: string): Promise<Farm> {
  return toFarm(await requireFarm(db, scope, farmId));
}

/** The zone a new farm takes without a `timezone`: its coordinates' zone when both are given, else UTC. */
function defaultTimezone(input: CreateFarmInput): string {
  const { lat, lon } = input;
  if (lat === undefined || lat === null || lon === undefined || lon === null) return 'UTC';
  return zoneAt(lat, lon) ?? 'UTC';
}

/**
 * Creates a farm in the scope's mode. `sample` marks an account's sample farm (test mode only). Without a
 * `timezone` the farm takes its coordinates' zone (UTC without coordinates).
 */
export async function createFarm(
  db: Db,
  scope: FarmCaller,
  input: CreateFarmInput,
  options: { sample?: boolean; now?: number } = {},
): Promise<Farm> {
  checkRulesAccess(scope, input.settings);
  const now = options.now ?? Date.now();
  const settings = checkSettings(input.settings ?? {});
  const row = {
    id: newId('farm', now),
    account_id: scope.accountId,
    name: input.name,
    mode: scope.mode,
    timezone: checkTimezone(input.timezone ?? defaultTimezone(input)),
    lat: input.lat ?? null,
    lon: input.lon ?? null,
    acres: input.acres ?? null,
    sample: options.sample ? 1 : 0,
    settings: mergedFreeFormJson('settings', settings),
    holding: input.holding ? JSON.stringify(input.holding) : null,
    rules_version: 0,
    created_at: now,
  };
  await insertFarm(db, row);
  return toFarm(row);
}

/**
 * What a change of a farm sets in motion, in the PATCH's transaction, in the modules built on farms. buildApp
 * installs them, so farms, which those modules build on, imports none of them.
 */
export interface FarmChangeHooks {
  /**
   * Its stored settings changed (text before and after): the rules module's `settleBuiltInRuleChanges` (a
   * built-in rule turned off or rewired in settings.rules resolves what it opened, as a custom rule does).
   */
  settingsChanged(
    trx: Db,
    farmId: string,
    settingsBefore: string,
    settingsAfter: string,
    now: number,
  ): Promise<unknown>;
  /** Its time zone changed: the tasks module's `rezoneDueDates` (tasks due on a day are due on that day of the new zone). */
  timezoneChanged(trx: Db, farmId: string, timeZone: string): Promise<unknown>;
}

export async function updateFarm(
  db: Db,
  scope: FarmCaller,
  farmId: string,
  input: UpdateFarmInput,
  hooks: FarmChangeHooks,
  now: number = Date.now(),
): Promise<Farm> {
  // `settings: null` clears every member, rules too.
  checkRulesAccess(scope, input.settings === null ? { rules: null } : input.settings);
  return inTransaction(db, async (trx) => {
    // Locked before it is read: `settings` merges into what is stored, so a concurrent PATCH must wait.
    await lockRows(trx, 'farms', farmId);
    const farm = await requireFarm(trx, scope, farmId);
    return toFarm(await applyFarmPatch(trx, farm, input, hooks, now));
  });
}

async function applyFarmPatch(
  trx: Db,
  farm: FarmRow,
  input: UpdateFarmInput,
  hooks: FarmChangeHooks,
  now: number,
): Promise<FarmRow> {
  const patch: Partial<{
    name: string;
    timezone: string;
    lat: number | null;
    lon: number | null;
    acres: number | null;
    settings: string;
    holding: string | null;
  }> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.timezone !== undefined) patch.timezone = checkTimezone(input.timezone);
  if (input.lat !== undefined) patch.lat = input.lat;
  if (input.lon !== undefined) patch.lon = input.lon;
  if (input.acres !== undefined) patch.acres = input.acres;
  if (input.holding !== undefined) {
    patch.holding = input.holding === null ? null : JSON.stringify(input.holding);
  }
  if (input.settings !== undefined) {
    // Members merge one level deep; null removes a member; `settings: null` clears everything.
    const merged: Record<string, unknown> =
      input.settings === null ? {} : { ...parseJson<Record<string, unknown>>(farm.settings, {}) };
    if (input.settings !== null) {
      for (const [key, value] of Object.entries(input.settings)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
    }
    if (!isPlainObject(merged)) throw invalid('settings', 'settings must be an object.');
    const checked = checkSettings(merged);
    if ((input.settings as Record<string, unknown> | null)?.escalation)
      await checkEscalationPeople(trx, farm.account_id, checked);
    // Capped as stored, after the merge: PATCHes of new members would otherwise grow it without bound.
    patch.settings = mergedFreeFormJson('settings', checked, farm.settings);
  }
  if (Object.keys(patch).length > 0) {
    await updateFarmRow(trx, farm.id, patch);
  }
  if (patch.timezone !== undefined && patch.timezone !== farm.timezone) {
    await hooks.timezoneChanged(trx, farm.id, patch.timezone);
  }
  if (patch.settings !== undefined) {
    await hooks.settingsChanged(trx, farm.id, farm.settings, patch.settings, now);
  }
  return { ...farm, ...patch };
}

/**
 * Deletes the farm and everything in it (every farm-owned table cascades on farm_id). The sample farm
 * is refused: it is reset, not deleted, so a test key always has a farm to work on.
 */
export async function deleteFarm(
  db: Db,
  scope: Scope,
  farmId: string,
): Promise<{ id: string; deleted: true }> {
  // In a retried transaction: the cascade locks the farm before its records, while a report in flight
  // holds its device and then needs the farm (its readings' key), so PostgreSQL may break a deadlock here.
  const deleted = await inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    if (farm.sample === 1) {
      throw conflict('The sample farm cannot be deleted; reset it with POST /v1/farms/{farm}/reset instead.');
    }
    if (!(await deleteFarmRow(trx, farm.id))) throw notFound('farm', farmId);
    // Its devices' keys stop working at once in every process (src/calls/key-cache.ts).
    await notify(trx, BUS_CHANNELS.farmDevices, farm.id);
    return { id: farm.id, deleted: true as const };
  });
  forgetFarmDevices(deleted.id);
  return deleted;
}
