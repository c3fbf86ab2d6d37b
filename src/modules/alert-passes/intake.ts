/**
 * group.intake_drop, the per-head roll-up. For a group with a head count, its house and water devices
 * (those whose `group_id` is the group) report `water.used_l` and `feed.dispensed_kg` as amounts since
 * their last report; summed over a day of the farm's own clock (midnight to midnight in its time
 * zone) and divided by the head count they give the day's water and feed per head. The last complete
 * day is compared with the median of the 7 days before it (days without any reading are left out;
 * at least 3 are needed): more than 25 % below (water) or 20 % below (feed), or the farm's own
 * `drop_pct`, opens a watch alert about the group; a later day back within 10 % of its median
 * resolves it; in between nothing changes. A background job runs the pass hourly, one process at a time on PostgreSQL.
 */
import { ADVISORY_LOCK, lockForTransaction, tryLockForTransaction } from '../../db/locks.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { AlertWords } from '../../domain/alert-words.ts';
import { farmIntakeRule, INTAKE_DROP_RULE } from '../../domain/built-in-rules.ts';
import { newId } from '../../domain/ids.ts';
import { localDateText, localDayBounds } from '../../lib/local-time.ts';
import { metrics as counters } from '../../lib/metrics.ts';
import {
  type AlertKey,
  findActiveAlert,
  insertActiveAlert,
  SEVERITY_RANK,
  toAlert,
} from '../alerts/repository.ts';
import { resolveAlertRow } from '../alerts/service.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { findIntakeGroups, findReadingsBetween, type IntakeGroupRow } from './repository.ts';

const INTAKE_PASS_LOCK = ADVISORY_LOCK.intakePass;

/**
 * Waits for a intake pass in flight to commit and keeps the next from starting (its try-lock fails, it
 * skips) until the caller's transaction ends: a settings change that turns the rule off then resolves
 * whatever that pass opened, and no pass that read the old settings opens anything after it.
 */
export async function waitForIntakePass(trx: Db): Promise<void> {
  await lockForTransaction(trx, INTAKE_PASS_LOCK);
}

/** Devices whose intake counts for the group they are in. */
export const INTAKE_DEVICE_TYPES = ['house', 'water'] as const;
/** Fewest earlier days with readings for a median to be trusted. */
export const MIN_TRAILING_DAYS = 3;

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface IntakeVerdict {
  metric: string;
  measure: string;
  dropPct: number;
  /** The day judged, per head, and the trailing median per head. */
  day: number;
  median: number;
  /** How far below the median, in percent (negative: above it). */
  belowPct: number;
  level: 'drop' | 'recovered' | 'between';
}

/**
 * Judges the last day of `dailyTotals` (oldest first, null for a day without readings) against the
 * median of the days before it. Null when there is too little to judge.
 */
export function judgeIntake(
  spec: { metric: string; drop_pct: number; measure: string },
  dailyTotals: ReadonlyArray<number | null>,
  headCount: number,
): IntakeVerdict | null {
  const day = dailyTotals.at(-1);
  const trailing = dailyTotals.slice(0, -1).filter((v): v is number => v !== null);
  const mid = median(trailing);
  if (day === null || day === undefined || mid === null || mid <= 0 || trailing.length < MIN_TRAILING_DAYS) {
    return null;
  }
  const belowPct = ((mid - day) / mid) * 100;
  let level: IntakeVerdict['level'] = 'between';
  if (belowPct > spec.drop_pct) level = 'drop';
  else if (Math.abs(belowPct) <= INTAKE_DROP_RULE.recover_pct) level = 'recovered';
  return {
    metric: spec.metric,
    measure: spec.measure,
    dropPct: spec.drop_pct,
    day: day / headCount,
    median: mid / headCount,
    belowPct,
    level,
  };
}

/** The farm-local day starts of the last complete day and the 7 before it, oldest first. */
function dayStarts(now: number, timeZone: string): number[] {
  const starts: number[] = [];
  let start = localDayBounds(now, timeZone).start;
  for (let i = 0; i <= INTAKE_DROP_RULE.trailing_days; i++) {
    start = localDayBounds(start - 1, timeZone).start;
    starts.unshift(start);
  }
  return starts;
}

function dayLabel(at: number, timeZone: string): string {
  return localDateText(at, timeZone);
}

const round = (n: number) => String(Number(n.toFixed(2)));

/** The built-in measures' terms in the alert words (a farm's own measure stays its text). */
const INTAKE_MEASURE_TERMS: Readonly<Record<string, string>> = {
  'Water per head': 'intake.water.used_l',
  'Feed per head': 'intake.feed.dispensed_kg',
};

export function intakeWords(
  group: { group_name: string },
  verdict: IntakeVerdict,
  day: string,
  unit: string,
): { title: string; reason: string; words: AlertWords } {
  const measureTerm = INTAKE_MEASURE_TERMS[verdict.measure];
  const terms = measureTerm ? { terms: { measure: measureTerm } } : {};
  return {
    words: {
      title: { key: 'intake.title', params: { measure: verdict.measure, group: group.group_name }, ...terms },
      reason: {
        key: 'intake.reason',
        params: {
          measure: verdict.measure,
          group: group.group_name,
          day,
          value: `${round(verdict.day)} ${unit}`,
          below: `${round(verdict.belowPct)}%`,
          median: `${round(verdict.median)} ${unit}`,
          drop: `${verdict.dropPct}%`,
        },
        ...terms,
      },
    },
    title: `${verdict.measure} dropped for ${group.group_name}`,
    reason:
      `${verdict.measure} for ${group.group_name} on ${day}: ${round(verdict.day)} ${unit}, ` +
      `${round(verdict.belowPct)}% below its 7-day median of ${round(verdict.median)} ${unit} ` +
      `(the rule opens at more than ${verdict.dropPct}% below)`,
  };
}

export interface IntakePassResult {
  ran: boolean;
  groups: number;
  opened: number;
  resolved: number;
}

/** One pass: judges the last complete local day of every watched group. */
export async function checkIntake(
  db: Db,
  now: number,
  only: { farmId?: string } = {},
): Promise<IntakePassResult> {
  return inTransaction(db, async (trx) => {
    const result: IntakePassResult = { ran: false, groups: 0, opened: 0, resolved: 0 };
    // One farm's pass (the sample farm's seeding) runs in its caller's transaction without the lock.
    if (only.farmId === undefined && !(await tryLockForTransaction(trx, INTAKE_PASS_LOCK))) return result;
    result.ran = true;
    const byGroup = new Map<string, { group: IntakeGroupRow; devices: string[] }>();
    for (const row of await findIntakeGroups(trx, INTAKE_DEVICE_TYPES, only.farmId)) {
      const entry = byGroup.get(row.group_id) ?? { group: row, devices: [] };
      entry.devices.push(row.device_id);
      byGroup.set(row.group_id, entry);
    }
    for (const { group, devices } of byGroup.values()) {
      const rule = farmIntakeRule(group.settings);
      if (!rule.enabled) continue;
      result.groups++;
      const outcome = await judgeGroup(trx, group, devices, rule.metrics, now);
      result.opened += outcome.opened;
      result.resolved += outcome.resolved;
    }
    return result;
  });
}

async function judgeGroup(
  trx: Trx,
  group: IntakeGroupRow,
  devices: readonly string[],
  specs: ReadonlyArray<{ metric: string; drop_pct: number; measure: string }>,
  now: number,
): Promise<{ opened: number; resolved: number }> {
  const starts = dayStarts(now, group.timezone);
  const first = starts[0] as number;
  const end = localDayBounds(now, group.timezone).start;
  const readings = await findReadingsBetween(
    trx,
    devices,
    specs.map((s) => s.metric),
    first,
    end,
  );
  const key: AlertKey = {
    farmId: group.farm_id,
    rule: INTAKE_DROP_RULE.name,
    subjectType: 'group',
    subjectId: group.group_id,
  };
  const verdicts: IntakeVerdict[] = [];
  for (const spec of specs) {
    const totals: Array<number | null> = starts.map(() => null);
    for (const r of readings) {
      if (r.metric !== spec.metric) continue;
      let i = starts.length - 1;
      while (i > 0 && r.at < (starts[i] as number)) i--;
      totals[i] = (totals[i] ?? 0) + r.value;
    }
    const verdict = judgeIntake(spec, totals, group.head_count);
    if (verdict) verdicts.push(verdict);
  }
  const drop = verdicts.find((v) => v.level === 'drop');
  const active = await findActiveAlert(trx, key);
  const day = dayLabel(starts.at(-1) as number, group.timezone);
  if (drop && !active) {
    const unit = drop.metric === 'water.used_l' ? 'L' : 'kg';
    const words = intakeWords(group, drop, day, unit);
    const inserted = await insertActiveAlert(trx, {
      id: newId('alert', now),
      farm_id: group.farm_id,
      severity: 'watch',
      severity_rank: SEVERITY_RANK.watch,
      title: words.title,
      reason: words.reason,
      words: JSON.stringify(words.words),
      rule: INTAKE_DROP_RULE.name,
      subject_type: 'group',
      subject_id: group.group_id,
      status: 'open',
      created_at: now,
      updated_at: now,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
    });
    if (!inserted) return { opened: 0, resolved: 0 };
    await emitEvent(trx, group.farm_id, 'alert.created', toAlert(inserted), now);
    counters.alertsOpened.inc({ rule: inserted.rule, severity: inserted.severity });
    return { opened: 1, resolved: 0 };
  }
  // Resolved once the day after the drop is back within 10 % on every measure that was judged.
  if (active && !drop && verdicts.length > 0 && verdicts.every((v) => v.level === 'recovered')) {
    if (active.created_at >= end) return { opened: 0, resolved: 0 }; // opened on this same day's judgement
    const why = `— resolved: intake on ${day} back within ${INTAKE_DROP_RULE.recover_pct}% of the median`;
    await resolveAlertRow(trx, active, now, `${active.reason} ${why}`, {
      key: 'resolved.intake',
      params: { day, pct: INTAKE_DROP_RULE.recover_pct },
    });
    return { opened: 0, resolved: 1 };
  }
  return { opened: 0, resolved: 0 };
}
