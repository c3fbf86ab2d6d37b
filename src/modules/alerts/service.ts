/**
 * Alert operations for callers with an API key (REST, MCP, the brief). Alerts open, escalate and
 * resolve automatically in the engine (engine.ts); people acknowledge and resolve them here.
 */

import type { Page } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type AlertWord, parseAlertWords } from '../../domain/alert-words.ts';
import { conflict } from '../../domain/errors.ts';
import type { AlertStatusFilter } from '../../domain/statuses.ts';
import { metrics } from '../../lib/metrics.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { backdatedTime, parseDateInput } from '../records/inputs.ts';
import { loadScoped } from '../records/scoped.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { alertPageCondition, parseAlertPage, toAlertPage } from './paging.ts';
import {
  ACTIVE_STATUSES,
  type AlertRow,
  findActiveAlertsOfRule,
  findActiveAlertsOfSubject,
  findAlertsPage,
  toAlert,
  transitionAlert,
} from './repository.ts';
import type { AcknowledgeAlertInput, Alert } from './schemas.ts';

export { toAlert } from './repository.ts';
export type { Alert } from './schemas.ts';

/**
 * A farm's alerts, most urgent first (urgent, watch, info), then newest. `status` defaults to
 * `active` (open and acknowledged). `page` is the raw `limit` / `before` of the request; `before`
 * takes the `next_before` cursor of a previous page or an ISO time (see paging.ts).
 */
export async function listAlerts(
  db: Db,
  scope: Scope,
  farmId: string,
  filter: { status?: AlertStatusFilter } = {},
  page: { limit?: number; before?: string } = {},
): Promise<Page<Alert>> {
  const request = parseAlertPage(page);
  const farm = await requireFarm(db, scope, farmId);
  const status = filter.status ?? 'active';
  const rows = await findAlertsPage(db, farm.id, status, alertPageCondition(request), request.limit + 1);
  return toAlertPage(rows, request, toAlert);
}

export async function getAlert(db: Db, scope: Scope, id: string): Promise<Alert> {
  return toAlert(await loadScoped(db, scope, 'alert', id));
}

/**
 * open → acknowledged, at now or at the earlier `acknowledged_at` a caller gives (tapped without signal and
 * sent later), kept between the alert's creation and now, by the person `by` names (a console session, or
 * the person an acknowledge token was made for; null for a key or an agent). Acknowledging an acknowledged
 * alert returns it unchanged; a resolved alert cannot be acknowledged (409 conflict).
 */
export async function acknowledgeAlert(
  db: Db,
  scope: Scope,
  id: string,
  input: AcknowledgeAlertInput = {},
  now = Date.now(),
  by: string | null = null,
): Promise<Alert> {
  const given =
    input.acknowledged_at === undefined ? null : parseDateInput('acknowledged_at', input.acknowledged_at);
  return inTransaction(db, async (trx) => {
    const row = await loadScoped(trx, scope, 'alert', id);
    const at = backdatedTime(given, row.created_at, now);
    const updated = await transitionAlert(trx, row.id, ['open'], {
      status: 'acknowledged',
      acknowledged_at: at,
      acknowledged_by: by,
      updated_at: now,
    });
    if (updated) return toAlert(updated);
    // Already moved on (possibly just now, in another transaction): answer from its current state.
    const current = await loadScoped(trx, scope, 'alert', id);
    if (current.status === 'acknowledged') return toAlert(current);
    throw conflict(`Alert ${id} is resolved; a resolved alert cannot be acknowledged.`);
  });
}

/**
 * Resolves an active alert and emits `alert.resolved` in the same transaction; returns the updated
 * row, or null when it was no longer active. Used by people (resolveAlert) and by the engine.
 */
export async function resolveAlertRow(
  db: Db,
  row: AlertRow,
  now: number,
  reason?: string,
  note?: AlertWord,
): Promise<AlertRow | null> {
  // The note (what the English reason appends) joins the alert's words, so every reader's language has it.
  const words = note === undefined ? null : parseAlertWords(row.words);
  const updated = await transitionAlert(db, row.id, ACTIVE_STATUSES, {
    status: 'resolved',
    resolved_at: now,
    updated_at: now,
    ...(reason === undefined ? {} : { reason }),
    ...(words === null ? {} : { words: JSON.stringify({ ...words, note }) }),
  });
  if (updated) await emitEvent(db, updated.farm_id, 'alert.resolved', toAlert(updated), now);
  if (updated) metrics.alertsResolved.inc({ rule: updated.rule, severity: updated.severity });
  return updated;
}

/**
 * Resolves every active alert a rule opened on a farm (the rule was disabled, deleted or changed),
 * each with `alert.resolved`; the reason keeps what was wrong and says why it closed.
 */
export async function resolveAlertsOfRule(
  db: Db,
  farmId: string,
  rule: string,
  why: string,
  now: number,
  note?: AlertWord,
): Promise<number> {
  return resolveAll(db, await findActiveAlertsOfRule(db, farmId, rule), why, now, note);
}

/** Resolves every active alert about a subject that is going away (a deleted device). */
export async function resolveAlertsOfSubject(
  db: Db,
  subject: { farmId: string; type: string; id: string },
  why: string,
  now: number,
  note?: AlertWord,
): Promise<number> {
  return resolveAll(
    db,
    await findActiveAlertsOfSubject(db, subject.farmId, subject.type, subject.id),
    why,
    now,
    note,
  );
}

async function resolveAll(
  db: Db,
  rows: readonly AlertRow[],
  why: string,
  now: number,
  note?: AlertWord,
): Promise<number> {
  let resolved = 0;
  for (const row of rows) {
    if (await resolveAlertRow(db, row, now, `${row.reason} — resolved: ${why}`, note)) resolved++;
  }
  return resolved;
}

/** open or acknowledged → resolved. Resolving a resolved alert returns it unchanged. */
export async function resolveAlert(db: Db, scope: Scope, id: string, now = Date.now()): Promise<Alert> {
  return inTransaction(db, async (trx) => {
    const row = await loadScoped(trx, scope, 'alert', id);
    if (row.status === 'resolved') return toAlert(row);
    const updated = await resolveAlertRow(trx, row, now);
    return toAlert(updated ?? (await loadScoped(trx, scope, 'alert', id)));
  });
}
