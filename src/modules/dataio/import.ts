/**
 * CSV import of animals: the export's columns, rows matched to existing animals by `eid`, else `tag`, to
 * update them instead of adding duplicates. One set of rules with the API: every row is checked against the
 * POST (new animal) or PATCH (matched animal) body schema, new rows are built by the same `newAnimalRow` as
 * createAnimal, references must name a group or paddock of the farm and an EID stays unique in the account
 * (checked for the whole file with a few queries, with the same messages), and changed animals go through
 * `updateAnimal` itself (so a paddock change logs its move). New animals are stored in bulk, with their
 * `animal.created` events: 5,000 rows are a few dozen statements, not tens of thousands.
 *
 * All in one transaction: one bad row imports nothing unless skip_invalid leaves the bad rows out. A dry
 * run checks everything and writes nothing.
 */
import type { ValidateFunction } from 'ajv';
import { isUniqueViolation } from '../../db/engine.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, conflict, invalid } from '../../domain/errors.ts';
import { compileChecked, describeAjvError, makeAjv } from '../../http/validation.ts';
import { parseJson } from '../../lib/json.ts';
import {
  type AnimalRow,
  eidHolders,
  farmAnimalRows,
  insertAnimals,
  toAnimal,
} from '../animals/repository.ts';
import {
  AnimalSchema,
  CreateAnimalBody,
  type CreateAnimalInput,
  UpdateAnimalBody,
} from '../animals/schemas.ts';
import { eidConflict, newAnimalRow, updateAnimal } from '../animals/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseDateInput } from '../records/inputs.ts';
import { referenceError } from '../records/references.ts';
import { emitEvents } from '../webhooks/emit.ts';
import { parseCsv } from './csv.ts';
import { farmRecordIds } from './repository.ts';
import { IMPORT_MAX_ROWS, type ImportResult, type ImportRowErrorT } from './schemas.ts';

/** Columns an import writes; id, farm_id and created_at (in every export) are read-only and ignored. */
const WRITABLE = Object.keys(CreateAnimalBody.properties);
const KNOWN = Object.keys(AnimalSchema.properties);

let validators: { create: ValidateFunction; update: ValidateFunction } | null = null;
function validatorsOf() {
  if (!validators) {
    const ajv = makeAjv({ coerceTypes: false });
    validators = {
      create: compileChecked(ajv, CreateAnimalBody),
      update: compileChecked(ajv, UpdateAnimalBody),
    };
  }
  return validators;
}

export interface ImportOptions {
  dryRun?: boolean;
  skipInvalid?: boolean;
  now?: number;
  /** Called as rows are checked, then as changed animals are written (the CLI's progress). */
  onProgress?: (stage: 'check' | 'write', done: number, total: number) => void;
}

/** The header, checked: only animal columns, each once. */
function checkHeader(header: string[]): void {
  const seen = new Set<string>();
  header.forEach((name, i) => {
    if (!KNOWN.includes(name)) {
      throw invalid(
        name || `column ${i + 1}`,
        `Row 1, column ${i + 1} "${name}" is not an animal column; the columns are ${KNOWN.join(', ')}.`,
      );
    }
    if (seen.has(name)) throw invalid(name, `Row 1: the column "${name}" appears twice.`);
    seen.add(name);
  });
}

type Values = Record<string, string | null | Record<string, unknown>>;
type Fail = (column: string | null, message: string) => void;

/** A row's cells as request members: an empty cell is null, `fields` is JSON text of an object. */
function rowValues(header: string[], cells: string[], fail: Fail): Values {
  const values: Values = {};
  header.forEach((name, i) => {
    if (!WRITABLE.includes(name)) return;
    const cell = cells[i] ?? '';
    if (name !== 'fields') {
      values[name] = cell === '' ? null : cell;
      return;
    }
    if (cell.trim() === '') {
      values.fields = {};
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(cell);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      fail('fields', 'fields must be JSON text of an object, e.g. {"colour":"red"}.');
      return;
    }
    values.fields = parsed as Record<string, unknown>;
  });
  return values;
}

function schemaFailure(validate: ValidateFunction, fail: Fail): boolean {
  const [issue] = validate.errors ?? [];
  if (!issue) return false;
  const { param, message } = describeAjvError(issue, 'column', 'row');
  fail(param.split('.')[0] ?? param, message);
  return true;
}

interface Farm {
  id: string;
  account_id: string;
  mode: 'live' | 'test';
}

/** What the import found in the farm before the first row, and what earlier rows claimed. */
interface Known {
  byEid: Map<string, AnimalRow>;
  byTag: Map<string, AnimalRow[]>;
  groups: Set<string>;
  paddocks: Set<string>;
  /** EID → the id of the account's animal holding it (any farm). */
  eidHolders: Map<string, string>;
  /** Animal id → the row that updates it; EID and tag (of rows without an EID) → the row that adds it. */
  touched: Map<string, number>;
  newEids: Map<string, number>;
  newTags: Map<string, number>;
}

async function loadKnown(db: Db, farm: Farm, eids: string[]): Promise<Known> {
  const rows = await farmAnimalRows(db, farm.id);
  const known: Known = {
    byEid: new Map(),
    byTag: new Map(),
    groups: await farmRecordIds(db, 'animal_groups', farm.id),
    paddocks: await farmRecordIds(db, 'paddocks', farm.id),
    eidHolders: await eidHolders(db, farm.account_id, farm.mode, eids),
    touched: new Map(),
    newEids: new Map(),
    newTags: new Map(),
  };
  for (const row of rows) {
    if (row.eid !== null) known.byEid.set(row.eid, row);
    if (row.tag !== null) known.byTag.set(row.tag, [...(known.byTag.get(row.tag) ?? []), row]);
  }
  return known;
}

/** The farm's animal a row stands for: by eid first, else by a tag that names one animal. */
function matchRow(values: Values, known: Known, fail: Fail): AnimalRow | null {
  const eid = typeof values.eid === 'string' ? values.eid : null;
  const tag = typeof values.tag === 'string' ? values.tag : null;
  if (eid !== null) {
    const byEid = known.byEid.get(eid);
    if (byEid) return byEid;
  }
  if (tag === null) return null;
  const byTag = known.byTag.get(tag) ?? [];
  if (byTag.length > 1) {
    fail('tag', `tag "${tag}" names ${byTag.length} animals on this farm; add their eid to say which.`);
    return null;
  }
  const [only] = byTag;
  // An animal with another EID is another animal, whatever its tag.
  return only && (eid === null || only.eid === null) ? only : null;
}

function checkReferences(
  values: { group_id?: unknown; paddock_id?: unknown },
  known: Known,
  fail: Fail,
): void {
  if (typeof values.group_id === 'string' && !known.groups.has(values.group_id)) {
    const e = referenceError('group', values.group_id, 'group_id');
    fail('group_id', e.message);
  }
  if (typeof values.paddock_id === 'string' && !known.paddocks.has(values.paddock_id)) {
    const e = referenceError('paddock', values.paddock_id, 'paddock_id');
    fail('paddock_id', e.message);
  }
}

/** An EID a row gives must be free: not another animal's in the account, not another row's. */
function checkEid(eid: unknown, selfId: string | null, known: Known, line: number, fail: Fail): void {
  if (typeof eid !== 'string') return;
  const holder = known.eidHolders.get(eid);
  if (holder !== undefined && holder !== selfId) {
    fail('eid', eidConflict(eid, holder).message);
    return;
  }
  const earlier = known.newEids.get(eid);
  if (earlier !== undefined) fail('eid', `Row ${earlier} of this file already gives eid "${eid}".`);
  else known.newEids.set(eid, line);
}

/** The members of a PATCH that would change the stored animal (empty: the row changes nothing). */
function changesOf(row: AnimalRow, patch: Record<string, unknown>): Record<string, unknown> {
  const current = toAnimal(row) as unknown as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'fields') {
      const stored = parseJson<Record<string, unknown>>(row.fields, {});
      const next = value as Record<string, unknown>;
      if (JSON.stringify(sortKeys(stored)) === JSON.stringify(sortKeys(next))) continue;
      // The row's fields replace the stored ones: members it lacks are removed (null, as in a PATCH).
      const merged: Record<string, unknown> = { ...next };
      for (const k of Object.keys(stored)) if (!(k in next)) merged[k] = null;
      changes.fields = merged;
    } else if (key === 'birth_date') {
      const at = typeof value === 'string' ? parseDateInput('birth_date', value) : null;
      if (at !== row.birth_date) changes.birth_date = value;
    } else if (current[key] !== value) changes[key] = value;
  }
  return changes;
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

type Plan =
  | { kind: 'create'; line: number; row: AnimalRow }
  | { kind: 'update'; line: number; id: string; patch: Record<string, unknown> }
  | { kind: 'unchanged'; line: number; id: string }
  | { kind: 'error'; line: number };

/** Checks one row against everything known, and says what it would do. */
function planRow(
  record: { line: number; cells: string[] },
  header: string[],
  farm: Farm,
  known: Known,
  now: number,
  errors: ImportRowErrorT[],
): Plan {
  const line = record.line;
  let failed = false;
  const fail: Fail = (column, message) => {
    failed = true;
    errors.push({ row: line, column, message });
  };
  if (record.cells.length !== header.length) {
    fail(null, `Row ${line} has ${record.cells.length} cells; the header has ${header.length} columns.`);
    return { kind: 'error', line };
  }
  const values = rowValues(header, record.cells, fail);
  const match = matchRow(values, known, fail);
  if (failed) return { kind: 'error', line };
  const { create, update } = validatorsOf();
  try {
    if (match) {
      const earlier = known.touched.get(match.id);
      if (earlier !== undefined) {
        fail(match.eid !== null ? 'eid' : 'tag', `This row names the same animal as row ${earlier}.`);
        return { kind: 'error', line };
      }
      known.touched.set(match.id, line);
      const patch: Record<string, unknown> = { ...values };
      // species and status cannot be emptied: an empty cell leaves them as they are.
      if (patch.species === null) delete patch.species;
      if (patch.status === null) delete patch.status;
      if (!update(patch) && schemaFailure(update, fail)) return { kind: 'error', line };
      const changes = changesOf(match, patch);
      if ('group_id' in changes || 'paddock_id' in changes) checkReferences(changes, known, fail);
      if ('eid' in changes) checkEid(changes.eid, match.id, known, line, fail);
      if (failed) return { kind: 'error', line };
      if (Object.keys(changes).length === 0) return { kind: 'unchanged', line, id: match.id };
      return { kind: 'update', line, id: match.id, patch: changes };
    }
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(values)) if (value !== null) body[key] = value;
    if (!create(body) && schemaFailure(create, fail)) return { kind: 'error', line };
    const row = newAnimalRow(farm, body as CreateAnimalInput, now);
    checkReferences(row, known, fail);
    checkEid(row.eid, null, known, line, fail);
    if (row.eid === null && row.tag !== null) {
      const earlier = known.newTags.get(row.tag);
      if (earlier !== undefined)
        fail('tag', `This row names the same animal as row ${earlier} (tag "${row.tag}").`);
      else known.newTags.set(row.tag, line);
    }
    return failed ? { kind: 'error', line } : { kind: 'create', line, row };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    fail(err.param ?? null, err.message);
    return { kind: 'error', line };
  }
}

/** Imports animals from CSV text into a farm. See the file comment; the result lists every row. */
export async function importAnimals(
  db: Db,
  scope: Scope,
  farmId: string,
  text: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const farm = await requireFarm(db, scope, farmId);
  const { header, records } = parseCsv(text);
  checkHeader(header);
  if (records.length > IMPORT_MAX_ROWS) {
    throw new AppError(
      'payload_too_large',
      `An import takes at most ${IMPORT_MAX_ROWS} rows; this file has ${records.length}. Split it.`,
      { param: 'body' },
    );
  }
  const now = options.now ?? Date.now();
  const dryRun = options.dryRun === true;
  const eidColumn = header.indexOf('eid');
  const eids =
    eidColumn < 0 ? [] : [...new Set(records.map((r) => r.cells[eidColumn] ?? '').filter(Boolean))];
  const total = records.length;

  const run = async (trx: Db): Promise<ImportResult> => {
    const known = await loadKnown(trx, farm, eids);
    const errors: ImportRowErrorT[] = [];
    const plans = records.map((record, i) => {
      const plan = planRow(record, header, farm, known, now, errors);
      if (i % 250 === 249 || i === total - 1) options.onProgress?.('check', i + 1, total);
      return plan;
    });
    const failed = plans.filter((p) => p.kind === 'error').length;
    if (failed > 0 && !options.skipInvalid && !dryRun) throw importFailed(errors);

    const ids = new Map<number, string>();
    if (!dryRun) {
      const creates = plans.flatMap((p) => (p.kind === 'create' ? [p.row] : []));
      try {
        await insertAnimals(trx, creates);
      } catch (err) {
        // Another request gave one of these EIDs meanwhile: the unique index keeps the promise.
        if (isUniqueViolation(err))
          throw conflict('Another animal took one of these EIDs during the import; run it again.', 'eid');
        throw err;
      }
      await emitEvents(
        trx,
        creates.map((row) => ({ farmId: farm.id, type: 'animal.created' as const, data: toAnimal(row) })),
        now,
      );
      // New animals in bulk; changed ones one by one through updateAnimal.
      const writes = creates.length + plans.filter((p) => p.kind === 'update').length;
      let written = creates.length;
      options.onProgress?.('write', written, writes);
      for (const plan of plans) {
        if (plan.kind === 'create') ids.set(plan.line, plan.row.id);
        if (plan.kind !== 'update') continue;
        await updateAnimal(trx, scope, plan.id, plan.patch, now);
        if (++written % 100 === 0 || written === writes) options.onProgress?.('write', written, writes);
      }
    }
    return {
      dry_run: dryRun,
      rows: total,
      created: plans.filter((p) => p.kind === 'create').length,
      updated: plans.filter((p) => p.kind === 'update').length,
      unchanged: plans.filter((p) => p.kind === 'unchanged').length,
      skipped: options.skipInvalid ? failed : 0,
      errors,
      results: plans.map((p) => ({
        row: p.line,
        action: p.kind,
        animal_id: p.kind === 'create' ? (ids.get(p.line) ?? null) : p.kind === 'error' ? null : p.id,
      })),
    };
  };
  // A dry run writes nothing, so it needs no transaction; a real import is one.
  return dryRun ? run(db) : inTransaction(db, run);
}

/** All or nothing: the first error names its row and column; the rest are counted. */
function importFailed(errors: ImportRowErrorT[]): AppError {
  const [first] = errors;
  const others = errors.length - 1;
  const rows = new Set(errors.map((e) => e.row)).size;
  const more =
    others > 0
      ? ` ${others} more error${others === 1 ? '' : 's'} (${rows} row${rows === 1 ? '' : 's'} with errors in all); send dry_run=true to see every one.`
      : '';
  const where = first?.column ? `, column ${first.column}` : '';
  return new AppError(
    'invalid_request',
    `Nothing was imported: row ${first?.row}${where}: ${first?.message}${more} (skip_invalid=true imports the valid rows.)`,
    first?.column ? { param: first.column } : {},
  );
}
