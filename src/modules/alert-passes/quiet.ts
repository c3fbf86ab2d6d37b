/**
 * device.quiet: a device silent for max(3 × its usual report interval, 15 min) — or the farm's own
 * `quiet_after_s` for its type instead of 15 min — gets a watch alert about it; a house or guardian
 * silent 6 h gets it escalated to urgent. The device's next report resolves it (the alert engine's
 * `resolveQuietAlert`, alert-engine/quiet-reported.ts). A background job runs `checkQuietDevices`: one query per pass, once across
 * processes (a PostgreSQL advisory lock; SQLite transactions are exclusive), and every write is
 * conditional, so even two passes at once could not open two alerts or emit twice.
 */

import { ADVISORY_LOCK, lockForTransaction, tryLockForTransaction } from '../../db/locks.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { AlertWords } from '../../domain/alert-words.ts';
import { DEVICE_QUIET_RULE, farmQuietRule, MIN_QUIET_AFTER_S } from '../../domain/built-in-rules.ts';
import { newId } from '../../domain/ids.ts';
import { ALERT_FARM_EVENT_TYPES } from '../../domain/webhook-events.ts';
import { metrics } from '../../lib/metrics.ts';
import { formatDuration, toIso } from '../../lib/time.ts';
import {
  ACTIVE_STATUSES,
  type AlertKey,
  type AlertRow,
  findActiveAlert,
  SEVERITY_RANK,
  toAlert,
  transitionAlert,
} from '../alerts/repository.ts';
import { recordFarmEvent } from '../events/service.ts';
import { emitEvents } from '../webhooks/emit.ts';
import {
  findQuietCandidates,
  insertActiveAlerts,
  markDeviceQuiet,
  markDevicesQuiet,
  type QuietCandidateRow,
} from './repository.ts';

/** The farm event an alert's escalation writes (one of the registry's alert farm events). */
const [ALERT_ESCALATED] = ALERT_FARM_EVENT_TYPES;

/** Only one process runs a pass at a time on PostgreSQL. */
export const QUIET_PASS_LOCK = ADVISORY_LOCK.quietPass;

/**
 * Waits for a quiet pass in flight to commit and keeps the next from starting (its try-lock fails, it
 * skips) until the caller's transaction ends: a settings change that turns the rule off then resolves
 * whatever that pass opened, and no pass that read the old settings opens anything after it.
 */
export async function waitForQuietPass(trx: Db): Promise<void> {
  await lockForTransaction(trx, QUIET_PASS_LOCK);
}

export interface QuietPassResult {
  /** False when another process held the pass. */
  ran: boolean;
  candidates: number;
  opened: number;
  escalated: number;
}

/** How long a device may be silent: max(3 × its usual interval (6 h when unknown), the farm's floor for its type). */
export function quietLimitMs(reportGapMs: number | null, floorS: number): number {
  // An unknown interval (one report so far) waits as long as the brief does: 6 h.
  const interval = reportGapMs ?? DEVICE_QUIET_RULE.unknown_after_s * 1000;
  return Math.max(reportGapMs === null ? interval : DEVICE_QUIET_RULE.factor * interval, floorS * 1000);
}

function quietLevel(device: QuietCandidateRow, now: number, floorS: number): 'watch' | 'urgent' | null {
  const silent = now - device.last_seen_at;
  if (silent < quietLimitMs(device.report_gap_ms, floorS)) return null;
  const urgentType = (DEVICE_QUIET_RULE.urgent_device_types as readonly string[]).includes(device.type);
  return urgentType && silent >= DEVICE_QUIET_RULE.urgent_after_s * 1000 ? 'urgent' : 'watch';
}

/** "No reports from House 2" / "House 2 has sent no report for 47 min (usually every 10 min) — last at …". */
export function quietAlertWords(
  device: { type: string; name: string; last_seen_at: number; report_gap_ms: number | null },
  now: number,
  level: 'watch' | 'urgent',
): { title: string; reason: string; words: AlertWords } {
  const unknown = device.report_gap_ms === null;
  const key = `quiet.reason${unknown ? '.unknown' : ''}${level === 'urgent' ? '.urgent' : ''}`;
  const usual =
    device.report_gap_ms === null
      ? 'usual interval unknown'
      : `usually every ${formatDuration(device.report_gap_ms)}`;
  const urgent =
    level === 'urgent'
      ? ` — a ${device.type} silent ${DEVICE_QUIET_RULE.urgent_after_s / 3600} h or more is urgent`
      : '';
  return {
    words: {
      title: { key: 'quiet.title', params: { device: device.name } },
      reason: {
        key,
        params: {
          device: device.name,
          silent_ms: now - device.last_seen_at,
          ...(device.report_gap_ms === null ? {} : { usual_ms: device.report_gap_ms }),
          last: toIso(device.last_seen_at),
          ...(level === 'urgent'
            ? { type: device.type, hours: String(DEVICE_QUIET_RULE.urgent_after_s / 3600) }
            : {}),
        },
        ...(level === 'urgent' ? { terms: { type: `device_type.${device.type}` } } : {}),
      },
    },
    title: `No reports from ${device.name}`,
    reason:
      `${device.name} has sent no report for ${formatDuration(now - device.last_seen_at)} (${usual}); ` +
      `last report ${toIso(device.last_seen_at)}${urgent}`,
  };
}

/** One pass over every farm's devices (or one farm's): open or escalate device.quiet alerts that are due. */
export async function checkQuietDevices(
  db: Db,
  now: number,
  only: { farmId?: string } = {},
): Promise<QuietPassResult> {
  return inTransaction(db, async (trx) => {
    const result: QuietPassResult = { ran: false, candidates: 0, opened: 0, escalated: 0 };
    // One farm's pass (the sample farm's seeding) runs in its caller's transaction without the lock.
    if (only.farmId === undefined && !(await tryLockForTransaction(trx, QUIET_PASS_LOCK))) return result;
    result.ran = true;
    const candidates = await findQuietCandidates(trx, now, {
      floorMs: MIN_QUIET_AFTER_S * 1000,
      factor: DEVICE_QUIET_RULE.factor,
      unknownMs: DEVICE_QUIET_RULE.unknown_after_s * 1000,
      urgentMs: DEVICE_QUIET_RULE.urgent_after_s * 1000,
      urgentTypes: DEVICE_QUIET_RULE.urgent_device_types,
      farmId: only.farmId,
    });
    result.candidates = candidates.length;
    const farmRules = new Map<string, ReturnType<typeof farmQuietRule>>();
    const fresh: Array<{ device: QuietCandidateRow; level: 'watch' | 'urgent' }> = [];
    for (const device of candidates) {
      let rule = farmRules.get(device.farm_id);
      if (!rule) {
        rule = farmQuietRule(device.settings);
        farmRules.set(device.farm_id, rule);
      }
      if (!rule.enabled) continue;
      const level = quietLevel(device, now, rule.quietAfterS(device.type));
      if (level === null || level === device.quiet_level) continue;
      if (device.quiet_level === null) {
        fresh.push({ device, level });
        continue;
      }
      if (!(await markDeviceQuiet(trx, device.id, device.last_seen_at, level))) continue;
      if (await escalateQuietAlert(trx, device, now)) result.escalated++;
    }
    // Newly quiet devices in a few statements however many there are: mark, insert, emit.
    for (let i = 0; i < fresh.length; i += QUIET_BATCH) {
      result.opened += await openQuietAlerts(trx, fresh.slice(i, i + QUIET_BATCH), now);
    }
    return result;
  });
}

function quietKey(device: { farm_id: string; id: string }): AlertKey {
  return {
    farmId: device.farm_id,
    rule: DEVICE_QUIET_RULE.name,
    subjectType: 'device',
    subjectId: device.id,
  };
}

/** Rows per statement when opening many alerts (well under SQLite's 32,766 parameters). */
const QUIET_BATCH = 500;

async function openQuietAlerts(
  trx: Trx,
  batch: ReadonlyArray<{ device: QuietCandidateRow; level: 'watch' | 'urgent' }>,
  now: number,
): Promise<number> {
  const marked = new Set<string>();
  for (const level of ['watch', 'urgent'] as const) {
    const devices = batch.filter((b) => b.level === level).map((b) => b.device);
    for (const id of await markDevicesQuiet(trx, devices, level)) marked.add(id);
  }
  const rows: AlertRow[] = batch
    .filter(({ device }) => marked.has(device.id))
    .map(({ device, level }) => {
      const words = quietAlertWords(device, now, level);
      return {
        id: newId('alert', now),
        farm_id: device.farm_id,
        severity: level,
        severity_rank: SEVERITY_RANK[level],
        title: words.title,
        reason: words.reason,
        words: JSON.stringify(words.words),
        rule: DEVICE_QUIET_RULE.name,
        subject_type: 'device',
        subject_id: device.id,
        status: 'open',
        created_at: now,
        updated_at: now,
        acknowledged_at: null,
        acknowledged_by: null,
        resolved_at: null,
      };
    });
  const inserted = await insertActiveAlerts(trx, rows);
  await emitEvents(
    trx,
    inserted.map((row) => ({ farmId: row.farm_id, type: 'alert.created' as const, data: toAlert(row) })),
    now,
  );
  for (const row of inserted) metrics.alertsOpened.inc({ rule: row.rule, severity: row.severity });
  return inserted.length;
}

/** A watch quiet alert on a house or guardian silent 6 h becomes urgent, logged as `alert.escalated`. */
async function escalateQuietAlert(trx: Trx, device: QuietCandidateRow, now: number): Promise<boolean> {
  const active = await findActiveAlert(trx, quietKey(device));
  if (active?.severity !== 'watch') return false;
  const { reason } = quietAlertWords(device, now, 'urgent');
  const escalated = await transitionAlert(
    trx,
    active.id,
    ACTIVE_STATUSES,
    { severity: 'urgent', severity_rank: SEVERITY_RANK.urgent, reason, updated_at: now },
    'watch',
  );
  if (!escalated) return false;
  await recordFarmEvent(
    trx,
    device.farm_id,
    {
      type: ALERT_ESCALATED,
      subject_type: 'device',
      subject_id: device.id,
      data: { alert_id: escalated.id, rule: escalated.rule, from: 'watch', to: 'urgent', reason },
      at: now,
    },
    now,
  );
  return true;
}
