/**
 * Checks that a record's references (group_id, paddock_id, subject_id, alert_id…) name a record on the
 * same farm. A missing one and one on another farm get the same 400, so nothing leaks across farms.
 */
import type { Db } from '../../db/schema.ts';
import { invalid } from '../../http/errors.ts';
import { ID_PREFIX } from '../../lib/ids.ts';

/** Subject kinds whose ids are checked. Other subject_type values are stored as given. */
export const SUBJECT_KINDS = ['animal', 'group', 'paddock', 'device', 'task', 'alert'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

const KIND_BY_PREFIX: Readonly<Record<string, SubjectKind>> = {
  [ID_PREFIX.animal]: 'animal',
  [ID_PREFIX.group]: 'group',
  [ID_PREFIX.paddock]: 'paddock',
  [ID_PREFIX.device]: 'device',
  [ID_PREFIX.task]: 'task',
  [ID_PREFIX.alert]: 'alert',
};

export function isSubjectKind(value: string | null | undefined): value is SubjectKind {
  return typeof value === 'string' && (SUBJECT_KINDS as readonly string[]).includes(value);
}

/** The kind an id names, from its prefix (`ani_…` is an animal), or null for a foreign id. */
export function subjectKindOfId(id: string): SubjectKind | null {
  const underscore = id.indexOf('_');
  if (underscore <= 0) return null;
  return KIND_BY_PREFIX[id.slice(0, underscore)] ?? null;
}

const TABLE_OF = {
  animal: 'animals',
  group: 'animal_groups',
  paddock: 'paddocks',
  device: 'devices',
  task: 'tasks',
  alert: 'alerts',
} as const;

/** Whether a record of this kind exists on the farm. */
export async function recordExists(db: Db, farmId: string, kind: SubjectKind, id: string): Promise<boolean> {
  const row = await db
    .selectFrom(TABLE_OF[kind])
    .select('id')
    .where('id', '=', id)
    .where('farm_id', '=', farmId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Throws 400 naming `param` unless the record exists on the farm. */
export async function requireReference(
  db: Db,
  farmId: string,
  kind: SubjectKind,
  id: string,
  param: string,
): Promise<void> {
  if (!(await recordExists(db, farmId, kind, id))) {
    throw invalid(param, `${param} "${id}" is not a ${kind} on this farm.`);
  }
}

/**
 * A subject as stored: subject_type is inferred from the id's prefix when omitted; the subject is
 * checked when its kind is known. Returns the pair to store.
 */
export async function resolveSubject(
  db: Db,
  farmId: string,
  subjectType: string | null,
  subjectId: string | null,
): Promise<{ subject_type: string | null; subject_id: string | null }> {
  const type = subjectType ?? (subjectId ? subjectKindOfId(subjectId) : null);
  if (subjectId && isSubjectKind(type)) await requireReference(db, farmId, type, subjectId, 'subject_id');
  return { subject_type: type, subject_id: subjectId };
}
