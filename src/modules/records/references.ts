/**
 * Checks that a record's references (group_id, paddock_id, subject_id, alert_id…) name a record on the
 * same farm. A missing one and one on another farm get the same 400, so nothing leaks across farms.
 */
import type { Db } from '../../db/schema.ts';
import { invalid } from '../../domain/errors.ts';
import { isSubjectKind, RECORD_KINDS, type SubjectKind, subjectKindOfId } from '../../domain/record-kinds.ts';

/** Whether a record of this kind exists on the farm. */
async function recordExists(db: Db, farmId: string, kind: SubjectKind, id: string): Promise<boolean> {
  const row = await db
    .selectFrom(RECORD_KINDS[kind].table)
    .select('id')
    .where('id', '=', id)
    .where('farm_id', '=', farmId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The 400 for a reference that names no record of that kind on the farm. */
export function referenceError(kind: SubjectKind, id: string, param: string) {
  const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
  return invalid(param, `${param} "${id}" is not ${article} ${kind} on this farm.`);
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
    throw referenceError(kind, id, param);
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

/**
 * The subject after a PATCH: the patch's members over the stored pair, resolved like a new one (a new
 * subject_id without a subject_type is inferred afresh rather than keeping the old kind). Null when the
 * patch names neither.
 */
export async function patchSubject(
  db: Db,
  farmId: string,
  stored: { subject_type: string | null; subject_id: string | null },
  patch: { subject_type?: string | null | undefined; subject_id?: string | null | undefined },
): Promise<{ subject_type: string | null; subject_id: string | null } | null> {
  if (patch.subject_type === undefined && patch.subject_id === undefined) return null;
  const subjectId = patch.subject_id !== undefined ? patch.subject_id : stored.subject_id;
  const subjectType =
    patch.subject_type !== undefined
      ? patch.subject_type
      : patch.subject_id !== undefined
        ? null
        : stored.subject_type;
  return resolveSubject(db, farmId, subjectType, subjectId);
}
