/**
 * CSV import of animals: the export's columns, rows matched to existing animals by `eid`, else `tag`, to
 * update them instead of adding duplicates. One set of rules with the API: every cell obeys the input rules
 * (no NUL or lone surrogates; `fields` as a JSON body: finite numbers, depth, size), every row is checked
 * against the POST (new animal) or PATCH (matched animal) body schema, new rows are built by the same
 * `newAnimalRow` as createAnimal, references must name a group or paddock of the farm and an EID stays unique
 * in the account (with the same messages), and changed animals go through `updateAnimal` itself (so a
 * paddock change logs its move). New animals are stored in bulk, with their `animal.created` events.
 *
 * Streamed: the file's bytes are parsed a record at a time, and rows are checked and written
 * IMPORT_BATCH_ROWS at a time, each batch matched against the farm with a few indexed reads of the EIDs,
 * tags and references it names. Between batches the import keeps only what is bounded by the row count and
 * small: each row's result, and the ids, EIDs and tags earlier rows claimed (to find two rows naming one
 * animal or one EID). Rows match the farm as it was before the import: an animal an earlier row created or
 * changed is matched by what it was, not by what the row wrote.
 *
 * All in one transaction: one bad row imports nothing unless skip_invalid leaves the bad rows out (from the
 * first bad row on, nothing more is written and the rest is only checked, to count the errors). A dry run
 * checks everything and writes nothing.
 */
import type { ValidateFunction } from 'ajv';
import { checkJsonValue, oneLineName, textProblem } from '../../calls/input-rules.ts';
import { isUniqueViolation } from '../../db/engine.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { normalizeEid } from '../../domain/eid.ts';
import { AppError, conflict, invalid } from '../../domain/errors.ts';
import { isLeavingStatus } from '../../domain/treatments.ts';
import { compileChecked, describeAjvError, firstIssue, makeAjv } from '../../lib/ajv.ts';
import { parseJson } from '../../lib/json.ts';
import { type AnimalRow, eidHolders, insertAnimals, toAnimal } from '../animals/repository.ts';
import {
  AnimalSchema,
  CreateAnimalBody,
  type CreateAnimalInput,
  LINEAGE_MEMBERS,
  UpdateAnimalBody,
} from '../animals/schemas.ts';
import { eidConflict, newAnimalRow, updateAnimal } from '../animals/service.ts';
import { animalsInMeatWithdrawal, describeHeld } from '../animals/withdrawal.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseDateInput } from '../records/inputs.ts';
import { referenceError } from '../records/references.ts';
import { emitEvents } from '../webhooks/emit.ts';
import { type CsvRecord, csvRecords, importedCell } from './csv.ts';
import { farmAnimalsNamed, farmRecordIds, refreshAnimalStatistics } from './repository.ts';
import {
  IMPORT_BODY_LIMIT_BYTES,
  IMPORT_MAX_LISTED_ERRORS,
  IMPORT_MAX_ROWS,
  type ImportResult,
  type ImportRowErrorT,
} from './schemas.ts';

/** Rows checked and written together: a batch's matches are a few queries, its creates one INSERT. */
export const IMPORT_BATCH_ROWS = 500;

/**
 * Columns an import writes; id, farm_id and created_at (in every export) are read-only and ignored, as are dam
 * and sire (set through the API, which checks each against the herd: docs/records.md "Lineage").
 */
const WRITABLE = Object.keys(CreateAnimalBody.properties).filter((k) => !LINEAGE_MEMBERS.includes(k));
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
  /** Called after each batch: the file's bytes read so far and in all, and the rows done (the CLI's progress). */
  onProgress?: (bytesRead: number, totalBytes: number, rows: number) => void;
}

/** The header, checked: only animal columns, each once, each free of NUL and lone surrogates. */
function checkHeader(header: string[]): void {
  const seen = new Set<string>();
  header.forEach((name, i) => {
    const problem = textProblem(name);
    if (problem) throw invalid(`column ${i + 1}`, `Row 1, column ${i + 1}: the column name ${problem}.`);
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

/**
 * A `fields` cell as a JSON body is checked (src/calls/input-rules.ts): an object, every number finite
 * (`1e309` is not stored as null), no NUL or lone surrogate in a string or member name. Depth and size are
 * the free-form cap the POST and PATCH schemas carry, checked with the row.
 */
function fieldsOf(cell: string, fail: Fail): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(cell);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    fail('fields', 'fields must be JSON text of an object, e.g. {"colour":"red"}.');
    return undefined;
  }
  try {
    // Walked without recursion, whatever its depth; named from `fields` down (fields.a.b).
    checkJsonValue({ fields: parsed }, 'fields');
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    fail('fields', err.message);
    return undefined;
  }
  return parsed as Record<string, unknown>;
}

/**
 * A row's cells as request members: an empty cell is null, `fields` is JSON text of an object, and a cell an
 * export guarded against formula injection (`'=…`) is read without that apostrophe (csv.ts `importedCell`).
 */
function rowValues(header: string[], cells: string[], fail: Fail): Values {
  const values: Values = {};
  header.forEach((name, i) => {
    const cell = importedCell(cells[i] ?? '');
    // Every cell obeys the text rules, even a read-only column's: nothing from outside skips them.
    const problem = textProblem(cell);
    if (problem) {
      fail(name, `${name} ${problem}.`);
      return;
    }
    if (!WRITABLE.includes(name)) return;
    if (name === 'eid') {
      // Any reader's form of an ISO 11784 number is the same animal (src/domain/eid.ts).
      values.eid = cell === '' ? null : normalizeEid(cell);
      return;
    }
    if (name !== 'fields') {
      values[name] = cell === '' ? null : name === 'name' ? oneLineName(cell) : cell;
      return;
    }
    if (cell.trim() === '') {
      values.fields = {};
      return;
    }
    const fields = fieldsOf(cell, fail);
    if (fields) values.fields = fields;
  });
  return values;
}

function schemaFailure(validate: ValidateFunction, fail: Fail): boolean {
  const issue = firstIssue(validate.errors);
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

/**
 * What the file's rows claimed so far, kept from batch to batch: ids, EIDs and tags, never rows. An animal
 * a row matched keeps the EID and tag it had before the import, so later rows match it by those.
 */
interface Claims {
  /** Animal id → the row that matched it (to update it, or finding nothing to change). */
  touched: Map<string, number>;
  /** The EID and tag each matched animal had before the import, and the animals by them. */
  before: Map<string, { eid: string | null; tag: string | null }>;
  beforeByEid: Map<string, string>;
  beforeByTag: Map<string, string[]>;
  /** Animals the import created (a later batch's reads find them, but rows never match them). */
  created: Set<string>;
  /** EID and tag (of rows without an EID) → the row that gives or adds it. */
  newEids: Map<string, number>;
  newTags: Map<string, number>;
}

function newClaims(): Claims {
  return {
    touched: new Map(),
    before: new Map(),
    beforeByEid: new Map(),
    beforeByTag: new Map(),
    created: new Set(),
    newEids: new Map(),
    newTags: new Map(),
  };
}

/** An animal a row may name: as stored (`row`), or as it was before an earlier row matched it (no `row`). */
interface Candidate {
  id: string;
  eid: string | null;
  tag: string | null;
  row: AnimalRow | null;
}

/** What one batch's rows are checked against: the farm's animals, groups and paddocks they name. */
interface Known {
  byEid: Map<string, Candidate>;
  byTag: Map<string, Candidate[]>;
  groups: Set<string>;
  paddocks: Set<string>;
  /** EID → the id of the account's animal holding it (any farm) before the import. */
  eidHolders: Map<string, string>;
  claims: Claims;
}

function stringsOf(rows: readonly Values[], column: string): string[] {
  const out = new Set<string>();
  for (const values of rows) {
    const value = values[column];
    if (typeof value === 'string') out.add(value);
  }
  return [...out];
}

/** Reads what a batch's rows name, as it was before the import (see Claims). */
async function loadKnown(db: Db, farm: Farm, rows: readonly Values[], claims: Claims): Promise<Known> {
  const eids = stringsOf(rows, 'eid');
  const tags = stringsOf(rows, 'tag');
  const known: Known = {
    byEid: new Map(),
    byTag: new Map(),
    groups: await farmRecordIds(db, 'animal_groups', farm.id, stringsOf(rows, 'group_id')),
    paddocks: await farmRecordIds(db, 'paddocks', farm.id, stringsOf(rows, 'paddock_id')),
    eidHolders: new Map(),
    claims,
  };
  const add = (candidate: Candidate) => {
    if (candidate.eid !== null) known.byEid.set(candidate.eid, candidate);
    if (candidate.tag !== null) {
      known.byTag.set(candidate.tag, [...(known.byTag.get(candidate.tag) ?? []), candidate]);
    }
  };
  // Animals this import created or matched hold what rows wrote: the first are never matched, the others
  // are matched by what they held before.
  const ownedByImport = (id: string) => claims.created.has(id) || claims.touched.has(id);
  for (const row of await farmAnimalsNamed(db, farm.id, eids, tags)) {
    if (!ownedByImport(row.id)) add({ id: row.id, eid: row.eid, tag: row.tag, row });
  }
  const earlier = new Set<string>();
  for (const eid of eids) {
    const id = claims.beforeByEid.get(eid);
    if (id !== undefined) earlier.add(id);
  }
  for (const tag of tags) for (const id of claims.beforeByTag.get(tag) ?? []) earlier.add(id);
  for (const id of earlier) {
    const was = claims.before.get(id);
    if (was) add({ id, ...was, row: null });
  }
  for (const [eid, id] of await eidHolders(db, farm.account_id, farm.mode, eids)) {
    if (!ownedByImport(id)) known.eidHolders.set(eid, id);
  }
  for (const eid of eids) {
    const id = claims.beforeByEid.get(eid);
    if (id !== undefined) known.eidHolders.set(eid, id);
  }
  return known;
}

/** The farm's animal a row stands for: by eid first, else by a tag that names one animal. */
function matchRow(values: Values, known: Known, fail: Fail): Candidate | null {
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

/** Records that a row matched this animal, with what it held before (later rows match by that). */
function claimMatch(claims: Claims, match: AnimalRow, line: number): void {
  claims.touched.set(match.id, line);
  claims.before.set(match.id, { eid: match.eid, tag: match.tag });
  if (match.eid !== null) claims.beforeByEid.set(match.eid, match.id);
  if (match.tag !== null) {
    claims.beforeByTag.set(match.tag, [...(claims.beforeByTag.get(match.tag) ?? []), match.id]);
  }
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
  const earlier = known.claims.newEids.get(eid);
  if (earlier !== undefined) fail('eid', `Row ${earlier} of this file already gives eid "${eid}".`);
  else known.claims.newEids.set(eid, line);
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

/** A row read from the file: its line, and its values or that it failed already. */
interface ReadRow {
  line: number;
  values: Values | null;
  errors: ImportRowErrorT[];
}

/** A record's cells as values, or its errors (a wrong cell count, a cell breaking the input rules). */
function readRow(record: CsvRecord, header: string[]): ReadRow {
  const line = record.line;
  const errors: ImportRowErrorT[] = [];
  if (record.cells.length !== header.length) {
    errors.push({
      row: line,
      column: null,
      message: `Row ${line} has ${record.cells.length} cells; the header has ${header.length} columns.`,
    });
    return { line, values: null, errors };
  }
  const values = rowValues(header, record.cells, (column, message) => {
    errors.push({ row: line, column, message });
  });
  return { line, values: errors.length > 0 ? null : values, errors };
}

/** Checks one row against everything known, and says what it would do. */
function planRow(
  line: number,
  values: Values,
  farm: Farm,
  known: Known,
  now: number,
  errors: ImportRowErrorT[],
): Plan {
  let failed = false;
  const fail: Fail = (column, message) => {
    failed = true;
    errors.push({ row: line, column, message });
  };
  const match = matchRow(values, known, fail);
  if (failed) return { kind: 'error', line };
  const { create, update } = validatorsOf();
  const claims = known.claims;
  try {
    if (match) {
      const earlier = claims.touched.get(match.id);
      if (earlier !== undefined || match.row === null) {
        fail(match.eid !== null ? 'eid' : 'tag', `This row names the same animal as row ${earlier}.`);
        return { kind: 'error', line };
      }
      claimMatch(claims, match.row, line);
      const patch: Record<string, unknown> = { ...values };
      // species and status cannot be emptied: an empty cell leaves them as they are.
      if (patch.species === null) delete patch.species;
      if (patch.status === null) delete patch.status;
      if (!update(patch) && schemaFailure(update, fail)) return { kind: 'error', line };
      const changes = changesOf(match.row, patch);
      if ('group_id' in changes || 'paddock_id' in changes) checkReferences(changes, known, fail);
      if ('eid' in changes) checkEid(changes.eid, match.id, known, line, fail);
      // A sale or slaughter by status inside a meat withdrawal: an import cannot carry the override a person
      // gives, so the row is an error here (the dry run shows it, skip_invalid leaves it out).
      if (typeof changes.status === 'string' && isLeavingStatus(changes.status)) {
        const [held] = animalsInMeatWithdrawal([match.row], now);
        if (held) {
          fail(
            'status',
            `${describeHeld(held)}. An import cannot record a leaving inside a withdrawal: set the status on the animal's page (or PATCH it with override_reason) if it must be recorded anyway.`,
          );
        }
      }
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
      const earlier = claims.newTags.get(row.tag);
      if (earlier !== undefined)
        fail('tag', `This row names the same animal as row ${earlier} (tag "${row.tag}").`);
      else claims.newTags.set(row.tag, line);
    }
    return failed ? { kind: 'error', line } : { kind: 'create', line, row };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    fail(err.param ?? null, err.message);
    return { kind: 'error', line };
  }
}

/**
 * What the import has found so far. Errors are kept when the answer lists them (a dry run, skip_invalid:
 * the first IMPORT_MAX_LISTED_ERRORS); otherwise the first error and the counts are all the refusal needs.
 * Results are dropped once such an import has an error: it will answer with the refusal.
 */
class Tally {
  rows = 0;
  created = 0;
  updated = 0;
  unchanged = 0;
  failedRows = 0;
  errorCount = 0;
  readonly errors: ImportRowErrorT[] = [];
  results: ImportResult['results'] | null = [];

  private readonly keepErrors: boolean;

  constructor(keepErrors: boolean) {
    this.keepErrors = keepErrors;
  }

  addErrors(errors: readonly ImportRowErrorT[]): void {
    if (errors.length === 0) return;
    this.failedRows++;
    this.errorCount += errors.length;
    const room = this.keepErrors ? IMPORT_MAX_LISTED_ERRORS : 1;
    for (const error of errors) if (this.errors.length < room) this.errors.push(error);
    if (!this.keepErrors) this.results = null;
  }
}

/** Checks one batch of rows and, when the import writes, stores it: creates in bulk, updates one by one. */
async function runBatch(
  trx: Db,
  scope: Scope,
  farm: Farm,
  batch: readonly ReadRow[],
  claims: Claims,
  tally: Tally,
  options: { dryRun: boolean; skipInvalid: boolean; now: number },
): Promise<void> {
  const readable = batch.flatMap((r) => (r.values ? [r.values] : []));
  const known = await loadKnown(trx, farm, readable, claims);
  const plans: Plan[] = [];
  for (const row of batch) {
    const errors = [...row.errors];
    const plan = row.values
      ? planRow(row.line, row.values, farm, known, options.now, errors)
      : ({ kind: 'error', line: row.line } as const);
    tally.addErrors(errors);
    if (plan.kind === 'create') {
      tally.created++;
      claims.created.add(plan.row.id);
    } else if (plan.kind === 'update') tally.updated++;
    else if (plan.kind === 'unchanged') tally.unchanged++;
    plans.push(plan);
  }
  const writes = !options.dryRun && (options.skipInvalid || tally.errorCount === 0);
  if (writes) {
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
      options.now,
    );
    for (const plan of plans) {
      if (plan.kind === 'update') await updateAnimal(trx, scope, plan.id, plan.patch, options.now);
    }
  }
  tally.results?.push(
    ...plans.map((p) => ({
      row: p.line,
      action: p.kind,
      animal_id: p.kind === 'create' ? (writes ? p.row.id : null) : p.kind === 'error' ? null : p.id,
    })),
  );
}

function tooLarge(message: string): AppError {
  return new AppError('payload_too_large', message, { param: 'body' });
}

/**
 * Every this many animals created, an import refreshes the animals table's planner statistics (PostgreSQL,
 * ANALYZE inside the import's transaction: it counts the transaction's own rows, and the statistics commit
 * with it). Taken when the table was a fraction of its size, they made the import's own lookups, and a list
 * or export right after it, plan as over a small table: 100,000 rows imported in 19 s and exported in 17 s
 * before, 13 s and 2.5 s after. ANALYZE holds its lock (it blocks another ANALYZE, VACUUM and DDL on
 * animals, not reads or writes) until the import commits.
 */
const REFRESH_STATISTICS_AFTER = 10_000;

/**
 * Imports animals from CSV (bytes, or text) into a farm. See the file comment; the result lists every row.
 * At most IMPORT_BODY_LIMIT_BYTES and IMPORT_MAX_ROWS rows: more is 413 (the rows as soon as the one too many
 * is read).
 */
export async function importAnimals(
  db: Db,
  scope: Scope,
  farmId: string,
  csv: Uint8Array | string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const farm = await requireFarm(db, scope, farmId);
  const bytes = typeof csv === 'string' ? Buffer.from(csv, 'utf8') : csv;
  if (bytes.length > IMPORT_BODY_LIMIT_BYTES) {
    throw tooLarge(
      `An import takes at most ${IMPORT_BODY_LIMIT_BYTES.toLocaleString('en')} bytes; this file has ${bytes.length.toLocaleString('en')}. Split it.`,
    );
  }
  const settings = {
    dryRun: options.dryRun === true,
    skipInvalid: options.skipInvalid === true,
    now: options.now ?? Date.now(),
  };

  // Everything the run keeps is made inside it: a transaction retried after a deadlock starts afresh.
  const run = async (trx: Db): Promise<ImportResult> => {
    const claims = newClaims();
    const tally = new Tally(settings.dryRun || settings.skipInvalid);
    let header: string[] | null = null;
    let batch: ReadRow[] = [];
    let bytesRead = 0;
    let analyzedAt = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await runBatch(trx, scope, farm, batch, claims, tally, settings);
      if (!settings.dryRun && tally.created - analyzedAt >= REFRESH_STATISTICS_AFTER) {
        analyzedAt = tally.created;
        await refreshAnimalStatistics(trx);
      }
      batch = [];
      options.onProgress?.(bytesRead, bytes.length, tally.rows);
    };
    for await (const record of csvRecords(bytes)) {
      bytesRead = record.bytes;
      if (header === null) {
        header = record.cells.map((h) => h.trim());
        checkHeader(header);
        continue;
      }
      if (++tally.rows > IMPORT_MAX_ROWS) {
        throw tooLarge(
          `An import takes at most ${IMPORT_MAX_ROWS.toLocaleString('en')} rows; this file has more (row ${record.line} is the ${tally.rows.toLocaleString('en')}th). Split it.`,
        );
      }
      batch.push(readRow(record, header));
      if (batch.length === IMPORT_BATCH_ROWS) await flush();
    }
    if (header === null) {
      throw invalid('body', 'The CSV is empty: send a header row, then one row per animal.');
    }
    bytesRead = bytes.length;
    await flush();
    if (tally.errorCount > 0 && !settings.skipInvalid && !settings.dryRun) throw importFailed(tally);
    return {
      dry_run: settings.dryRun,
      rows: tally.rows,
      created: tally.created,
      updated: tally.updated,
      unchanged: tally.unchanged,
      skipped: settings.skipInvalid ? tally.failedRows : 0,
      error_count: tally.errorCount,
      errors: tally.errors,
      results: tally.results ?? [],
    };
  };
  // A dry run writes nothing, so it needs no transaction; a real import is one.
  return settings.dryRun ? run(db) : inTransaction(db, run);
}

/** All or nothing: the first error names its row and column; the rest are counted. */
function importFailed(tally: Tally): AppError {
  const [first] = tally.errors;
  const others = tally.errorCount - 1;
  const rows = tally.failedRows;
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
