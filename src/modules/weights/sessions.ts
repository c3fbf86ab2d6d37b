/**
 * Weigh sessions (issue 47): a scale indicator's session file read (session-file.ts, formats.ts), its rows
 * matched to the farm's animals (by EID in any ISO reader form, then by visual tag), previewed by a dry run,
 * then imported exactly once: an `Idempotency-Key` replays the first answer (http/idempotency.ts), and the
 * file's SHA-256, unique per farm, makes the same file again import nothing. Each weight becomes a `weight`
 * event naming the session (source `session`), all in one transaction with the session's summary and one
 * `weigh_session.imported` (no `event.created` per weight: docs/records.md).
 */
import { createHash } from 'node:crypto';
import { isUniqueViolation } from '../../db/engine.ts';
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { FarmEventsTable } from '../../db/tables/records.ts';
import { inTransaction } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { impossibleWeight, WEIGHT_EVENT } from '../../domain/weights.ts';
import { toIso } from '../../lib/time.ts';
import { type AnimalRow, eidHolders, insertAnimals, toAnimal } from '../animals/repository.ts';
import { newAnimalRow } from '../animals/service.ts';
import { type FarmRow, requireFarm, type Scope } from '../farms/access.ts';
import { CLOCK_AHEAD_MS, parseRecordAt, requireDone } from '../records/inputs.ts';
import { requireReference } from '../records/references.ts';
import { loadScoped } from '../records/scoped.ts';
import { emitEvents } from '../webhooks/emit.ts';
import { gainBetween, histogramOf, meanOf, roundGain, spreadOf } from './gain.ts';
import {
  animalsForMatching,
  farmWeightsBetween,
  insertWeighSession,
  insertWeightEvents,
  latestWeightsBefore,
  type MatchAnimal,
  type StoredWeight,
  sessionBefore,
  sessionByHash,
  sessionPage,
  toWeighSession,
  type WeighSessionRow,
} from './repository.ts';
import type {
  ImportedSession,
  ImportSessionInput,
  SessionPreview,
  SessionRowRef,
  WeighSession,
} from './schemas.ts';
import { readSessionFile, type SessionRow } from './session-file.ts';

/** A row that will be stored: its animal (found, or to be created) and its weight. */
interface Accepted {
  row: SessionRow & { kg: number; at: number };
  animal: MatchAnimal;
  created: AnimalRow | null;
}

interface Plan {
  format: string;
  preview: SessionPreview;
  accepted: Accepted[];
  /** Unmatched rows to create animals for (create_unmatched). */
  toCreate: Array<SessionRow & { kg: number; at: number }>;
}

const ref = (row: SessionRow, reason: string, animalId: string | null = null): SessionRowRef => ({
  row: row.line,
  eid: row.eid,
  tag: row.tag,
  kg: row.kg,
  animal_id: animalId,
  reason,
});

const tagKey = (tag: string) => tag.trim().toLowerCase();

/** The farm's animals by EID and by tag (a tag several active animals share matches none of them). */
function indexAnimals(animals: readonly MatchAnimal[]) {
  const byEid = new Map<string, MatchAnimal>();
  const byTag = new Map<string, MatchAnimal[]>();
  for (const animal of animals) {
    if (animal.eid !== null) byEid.set(animal.eid, animal);
    if (animal.tag !== null) {
      const list = byTag.get(tagKey(animal.tag)) ?? [];
      list.push(animal);
      byTag.set(tagKey(animal.tag), list);
    }
  }
  return { byEid, byTag };
}

/** Reads, matches and checks the file: what a dry run answers and an import stores. */
async function planSession(db: Db, farm: FarmRow, input: ImportSessionInput, now: number): Promise<Plan> {
  const defaultAt = input.at === undefined ? now : parseRecordAt('at', input.at, farm.timezone);
  requireDone('at', defaultAt, now, 'a weigh session');
  const read = await readSessionFile(input.content, {
    format: input.format,
    mapping: input.mapping,
    unit: input.unit,
    dateOrder: input.date_order ?? 'dmy',
    defaultAt,
    timezone: farm.timezone,
  });
  if (read.format === 'csv' && input.mapping === undefined && input.dry_run !== true) {
    throw invalid(
      'mapping',
      'A generic CSV is imported with the column mapping you confirm: run a dry run, check its mapping, and send it as mapping.',
    );
  }
  if (input.create_unmatched && input.species === undefined && input.dry_run !== true) {
    throw invalid('species', 'Give the species of the animals create_unmatched creates.');
  }
  const { byEid, byTag } = indexAnimals(await animalsForMatching(db, farm.id));
  const timed = read.rows.filter((r) => r.at !== null).map((r) => r.at as number);
  const stored = new Set<string>();
  if (timed.length > 0) {
    const from = Math.min(...timed);
    const to = Math.max(...timed);
    for (const w of await farmWeightsBetween(db, farm.id, from, to))
      stored.add(`${w.animal_id} ${w.at} ${w.kg}`);
  }
  const unmatched: SessionRowRef[] = [];
  const duplicates: SessionRowRef[] = [];
  const refused: SessionRowRef[] = [];
  const accepted: Accepted[] = [];
  const toCreate: Plan['toCreate'] = [];
  const seen = new Map<string, number>();
  const seenUnmatched = new Map<string, number>();
  let byEidCount = 0;
  let byTagCount = 0;
  for (const row of read.rows) {
    if (row.problem !== null || row.kg === null || row.at === null) {
      refused.push(ref(row, row.problem ?? 'Unreadable row.'));
      continue;
    }
    // A weight from next year is a misread date (dmy against mdy, a scale head's clock), not a weight.
    if (row.at > now + CLOCK_AHEAD_MS) {
      refused.push(ref(row, `Its date ${toIso(row.at)} is in the future.`));
      continue;
    }
    const usable = row as SessionRow & { kg: number; at: number };
    let animal = row.eid === null ? undefined : byEid.get(row.eid);
    let how: 'eid' | 'tag' = 'eid';
    if (!animal && row.tag !== null) {
      const holders = byTag.get(tagKey(row.tag)) ?? [];
      const active = holders.filter((a) => a.status === 'active');
      const candidates = active.length > 0 ? active : holders;
      if (candidates.length > 1) {
        refused.push(ref(row, `Tag "${row.tag}" is on ${candidates.length} animals: weigh by EID.`));
        continue;
      }
      animal = candidates[0];
      how = 'tag';
    }
    if (!animal) {
      const key = row.eid ?? `tag ${tagKey(row.tag ?? '')}`;
      const first = seenUnmatched.get(key);
      if (first !== undefined) {
        duplicates.push(ref(row, `The same EID or tag is on row ${first} too.`));
        continue;
      }
      seenUnmatched.set(key, row.line);
      const impossible = input.species ? impossibleWeight(usable.kg, input.species) : null;
      if (impossible) {
        refused.push(ref(row, impossible));
        continue;
      }
      unmatched.push(ref(row, 'No animal of this farm has this EID or tag.'));
      if (input.create_unmatched) toCreate.push(usable);
      continue;
    }
    const impossible = impossibleWeight(usable.kg, animal.species);
    if (impossible) {
      refused.push(ref(row, impossible, animal.id));
      continue;
    }
    const first = seen.get(animal.id);
    if (first !== undefined) {
      duplicates.push(ref(row, `The animal is weighed on row ${first} already.`, animal.id));
      continue;
    }
    seen.set(animal.id, row.line);
    if (stored.has(`${animal.id} ${usable.at} ${usable.kg}`)) {
      duplicates.push(ref(row, 'This weight is stored already (same animal, time and kg).', animal.id));
      continue;
    }
    if (how === 'eid') byEidCount++;
    else byTagCount++;
    accepted.push({ row: usable, animal, created: null });
  }
  const preview: SessionPreview = {
    dry_run: true,
    format: read.format,
    mapping: read.mapping,
    unit: read.unit,
    rows: read.rows.length,
    matched: byEidCount + byTagCount,
    matched_by_eid: byEidCount,
    matched_by_tag: byTagCount,
    unmatched,
    duplicates,
    refused,
    imported_as: null,
  };
  return { format: read.format, preview, accepted, toCreate };
}

export function fileHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** POST /v1/farms/{farm}/weigh-sessions/import with dry_run: what the import would do; nothing stored. */
export async function previewWeighSession(
  db: Db,
  scope: Scope,
  farmId: string,
  input: ImportSessionInput,
  now: number = Date.now(),
): Promise<SessionPreview> {
  const farm = await requireFarm(db, scope, farmId);
  const plan = await planSession(db, farm, input, now);
  const earlier = await sessionByHash(db, farm.id, fileHash(input.content));
  return { ...plan.preview, imported_as: earlier?.id ?? null };
}

/** Animals for the unmatched rows (create_unmatched): EIDs another animal of the account holds are refused. */
async function createUnmatched(
  trx: Db,
  farm: FarmRow,
  input: ImportSessionInput,
  plan: Plan,
  now: number,
): Promise<AnimalRow[]> {
  if (plan.toCreate.length === 0) return [];
  if (input.group_id) await requireReference(trx, farm.id, 'group', input.group_id, 'group_id');
  const eids = plan.toCreate.flatMap((r) => (r.eid === null ? [] : [r.eid]));
  const held = await eidHolders(trx, farm.account_id, farm.mode, eids);
  const rows: AnimalRow[] = [];
  for (const row of plan.toCreate) {
    if (row.eid !== null && held.has(row.eid)) {
      plan.preview.refused.push(ref(row, 'Another animal of the account (on another farm) has this EID.'));
      continue;
    }
    const created = newAnimalRow(
      farm,
      {
        species: input.species as string,
        ...(row.eid === null ? {} : { eid: row.eid }),
        ...(row.tag === null ? {} : { tag: row.tag }),
        ...(input.group_id ? { group_id: input.group_id } : {}),
      },
      now,
    );
    rows.push(created);
    plan.accepted.push({
      row,
      created,
      animal: { ...created, status: created.status },
    });
  }
  await insertAnimals(trx, rows);
  await emitEvents(
    trx,
    rows.map((row) => ({ farmId: farm.id, type: 'animal.created' as const, data: toAnimal(row) })),
    now,
  );
  return rows;
}

/** The session's ADG: the mean of its animals' gains since each one's weight before the session. */
function sessionAdg(accepted: readonly Accepted[], before: ReadonlyMap<string, StoredWeight>): number | null {
  const gains: number[] = [];
  for (const { row, animal } of accepted) {
    const previous = before.get(animal.id);
    const gain = previous ? gainBetween(previous, row) : null;
    if (gain !== null) gains.push(gain);
  }
  const mean = meanOf(gains);
  return mean === null ? null : roundGain(mean);
}

/** POST /v1/farms/{farm}/weigh-sessions/import: the session stored, or the one this file was before. */
export async function importWeighSession(
  db: Db,
  scope: Scope,
  farmId: string,
  input: ImportSessionInput,
  now: number = Date.now(),
): Promise<ImportedSession> {
  const hash = fileHash(input.content);
  const already = async (row: WeighSessionRow): Promise<ImportedSession> => ({
    ...toWeighSession(row),
    already_imported: true,
    unmatched: [],
    duplicates: [],
    refused: [],
  });
  try {
    return await inTransaction(db, async (trx) => {
      const farm = await requireFarm(trx, scope, farmId);
      const earlier = await sessionByHash(trx, farm.id, hash);
      if (earlier) return already(earlier);
      const plan = await planSession(trx, farm, input, now);
      const created = await createUnmatched(trx, farm, input, plan, now);
      const accepted = plan.accepted;
      // Nothing to store is not a session: no empty one dated now, no webhook, and the file is not taken as
      // imported, so it can be sent again once its animals exist.
      if (accepted.length === 0) {
        const { rows, unmatched, duplicates, refused } = plan.preview;
        throw invalid(
          'content',
          `Nothing in this file was stored: ${rows} rows, ${unmatched.length} not matched to an animal, ${duplicates.length} already stored, ${refused.length} refused. Add the animals (or send create_unmatched) and import it again.`,
        );
      }
      const at = accepted.length > 0 ? Math.min(...accepted.map((a) => a.row.at)) : now;
      // Each animal's latest weight before this session: the session's ADG.
      const before = await latestWeightsBefore(
        trx,
        farm.id,
        accepted.filter((a) => a.created === null).map((a) => a.animal.id),
        at,
      );
      const previous = await sessionBefore(trx, farm.id, at);
      const kgs = accepted.map((a) => a.row.kg);
      const spread = spreadOf(kgs);
      const id = newId('weigh_session', now);
      const row: WeighSessionRow = {
        id,
        farm_id: farm.id,
        name: input.name ?? null,
        format: plan.format,
        file_hash: hash,
        at,
        rows: plan.preview.rows,
        head_count: accepted.length,
        created_animals: created.length,
        mean_kg: spread.mean_kg,
        min_kg: spread.min_kg,
        max_kg: spread.max_kg,
        adg_kg_per_day: sessionAdg(accepted, before),
        previous_session_id: previous?.id ?? null,
        histogram: JSON.stringify(histogramOf(kgs)),
        created_at: now,
      };
      await insertWeighSession(trx, row);
      const events: FarmEventsTable[] = accepted.map(({ row: r, animal }) => ({
        id: newId('event', now),
        farm_id: farm.id,
        type: WEIGHT_EVENT,
        subject_type: 'animal',
        subject_id: animal.id,
        data: JSON.stringify({
          ...r.traits,
          kg: r.kg,
          source: 'session',
          session_id: id,
          ...(r.eid === null ? {} : { eid: r.eid }),
          ...(r.tag === null ? {} : { tag: r.tag }),
        }),
        at: r.at,
        created_at: now,
      }));
      await insertWeightEvents(trx, events);
      // One webhook event for the session, not an event.created per weight: 5,000 outbox rows per file made
      // the import and the stream's sequencer behind it several times slower (BENCHMARKS.md).
      const session = toWeighSession(row);
      await emitEvents(
        trx,
        [{ farmId: farm.id, type: 'weigh_session.imported' as const, data: session }],
        now,
      );
      const { unmatched, duplicates, refused } = plan.preview;
      const createdIds = new Set(created.map((c) => c.eid ?? c.tag));
      return {
        ...session,
        already_imported: false,
        unmatched: unmatched.filter((u) => !createdIds.has(u.eid ?? u.tag)),
        duplicates,
        refused,
      };
    });
  } catch (err) {
    // The same file imported at the same moment by another request: its session is the answer.
    if (!isUniqueViolation(err)) throw err;
    const farm = await requireFarm(db, scope, farmId);
    const earlier = await sessionByHash(db, farm.id, hash);
    if (!earlier) throw err;
    return already(earlier);
  }
}

export async function listWeighSessions(
  db: Db,
  scope: Scope,
  farmId: string,
  page: PageRequest,
): Promise<Page<WeighSession>> {
  const farm = await requireFarm(db, scope, farmId);
  return sessionPage(db, farm.id, page);
}

export async function getWeighSession(db: Db, scope: Scope, id: string): Promise<WeighSession> {
  return toWeighSession(await loadScoped(db, scope, 'weigh_session', id));
}
