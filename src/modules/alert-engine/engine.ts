/**
 * The alert engine's entry point. Ingest calls `evaluateReport` inside the report's transaction, after
 * the readings and device events are stored, so alerts open and resolve atomically with the report.
 *
 * Per reading of a rule's metric (in time order): at or beyond urgent → an urgent alert, at or beyond
 * watch → a watch alert, at or past clears-at → the active alert resolves, in between → nothing
 * (hysteresis). One active alert per farm, rule and subject: the database's unique partial index
 * holds that across processes; a crossing while one is active updates it (escalating watch → urgent).
 * A reading older than the latest one evaluated for its device and metric changes nothing.
 */

import { DEFAULT_MAX_CLOCK_SKEW_S } from '../../config.ts';
import type { Trx } from '../../db/schema.ts';
import type { AlertSeverity } from '../../db/tables/alerts.ts';
import type { AlertWords } from '../../domain/alert-words.ts';
import { ALARM_EVENT_BY_TYPE, type AlarmEventType } from '../../domain/devices.ts';
import { newId } from '../../domain/ids.ts';
import { classifyReading } from '../../domain/rules.ts';
import { ALERT_FARM_EVENT_TYPES } from '../../domain/webhook-events.ts';
import { metrics } from '../../lib/metrics.ts';
import {
  ACTIVE_STATUSES,
  type AlertKey,
  type AlertRow,
  findActiveAlert,
  insertActiveAlert,
  SEVERITY_RANK,
  toAlert,
  transitionAlert,
} from '../alerts/repository.ts';
import { resolveAlertRow } from '../alerts/service.ts';
import { recordFarmEvent } from '../events/service.ts';
import type { EngineRule } from '../rules/repository.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { settleClockAlert } from './clock.ts';
import { resolveQuietAlert } from './quiet-reported.ts';
import { knownReadings, reportReadingsOf } from './recent-readings.ts';
import type { IngestedReport } from './report.ts';
import { moveWatermarksAndReadState } from './report-state.ts';
import { type ReportState, saveBreaches } from './repository.ts';
import {
  changesOverWindow,
  inGroupScope,
  loadRules,
  type MetricPlan,
  metricCandidates,
  plansAfterWatermarks,
  rateExtremes,
  rateWindows,
  readingSpans,
  readingsByMetric,
  watermarkMoves,
  windowOf,
} from './rule-inputs.ts';
import { animalLabel, deviceLabel } from './subjects.ts';
import {
  eventAlertReason,
  eventAlertTitle,
  eventAlertWords,
  readingAlertReason,
  readingAlertTitle,
  readingAlertWords,
  type SubjectLabel,
} from './wording.ts';

/** The farm event an alert's escalation writes (one of the registry's alert farm events). */
const [ALERT_ESCALATED] = ALERT_FARM_EVENT_TYPES;

type Reading = IngestedReport['readings'][number];

interface Context {
  trx: Trx;
  farmId: string;
  now: number;
  /** The latest time a stored watermark or breach start may sanely hold (receipt plus the clock tolerance). */
  futureBound: number;
}

/**
 * A lost race (another transaction changed the alert between our read and our write) is retried
 * from a fresh read; each retry sees a newer committed state, so a few attempts always settle.
 */
const MAX_ATTEMPTS = 5;

/**
 * Whatever the number of rules, a report costs the engine a fixed few statements: the custom rules
 * (unless ingest read them), the animal's label for an animal's device, one watermark upsert, one
 * select of the alerts and rule state, and writes only for what changes.
 */
export async function evaluateReport(trx: Trx, report: IngestedReport): Promise<void> {
  if (report.device.quiet_level) {
    await resolveQuietAlert(trx, { ...report.device, farm_id: report.farm.id }, report.receivedAt);
  }
  const clock = report.clock;
  if (clock && (clock.refused > 0 || report.device.clock_skewed)) {
    await settleClockAlert(trx, { ...report, clock });
  }
  const rules = await loadRules(trx, report);
  const byMetric = readingsByMetric(report.readings, rules);
  const alarms = report.events.filter((e) => ALARM_EVENT_BY_TYPE.has(e.type)).sort((a, b) => a.at - b.at);
  if (byMetric.size === 0 && alarms.length === 0) return;

  const ctx: Context = {
    trx,
    farmId: report.farm.id,
    now: report.receivedAt,
    futureBound: report.receivedAt + (report.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_S * 1000),
  };
  const deviceSubject = deviceLabel(report.device);
  const animal = report.device.animal_id
    ? await animalLabel(trx, report.farm.id, report.device.animal_id, report.device)
    : null;
  const readingSubject = animal?.label ?? deviceSubject;
  const groups = new Set([report.device.group_id, animal?.groupId].filter((g) => g != null));
  const inScope = rules.filter((r) => inGroupScope(r, groups));
  const candidates = metricCandidates(byMetric, inScope);
  if (candidates.length === 0 && alarms.length === 0) return;

  const subjects = alarms.length > 0 && animal ? [readingSubject, deviceSubject] : [readingSubject];
  // What the state read fetches is worked out from the candidate metrics, before their watermarks drop
  // late readings (it moves them in the same round trip); the read starts each span no further back than
  // its watermark allows (report-state.ts, spanStart).
  const spans = readingSpans(rateWindows(candidates).values());
  // The stored readings the windows need: what this process kept since the device's previous report,
  // else read with the rest of the report's state.
  const recent = spans.length > 0 ? reportReadingsOf(report) : null;
  const known = spans.map((span) => (recent ? knownReadings(recent, span) : null));
  const {
    watermarks,
    state,
    spans: read,
  } = await moveWatermarksAndReadState(trx, {
    farmId: ctx.farmId,
    deviceId: report.device.id,
    latest: watermarkMoves(candidates),
    futureBound: ctx.futureBound,
    subjects: subjects.map((s) => ({ type: s.type, id: s.id })),
    breaches: candidates.some((p) => p.rules.some((r) => r.for_s !== null)),
    spans: spans.filter((_, i) => known[i] === null),
  });
  // A span read from the database starts where the watermark let it (spanStart): what this process keeps
  // for the device's next report says so.
  let next = 0;
  const used = spans.map((span, i) => (known[i] === null ? (read[next++] ?? span) : span));
  const plans = plansAfterWatermarks(candidates, watermarks);
  const windows = rateWindows(plans);
  const extremes = rateExtremes(windows, used, known, state.stored, recent);
  await applyPlans(ctx, report.device.id, readingSubject, plans, state, extremes);

  const deviceAlerts = activeByRule(state, deviceSubject);
  for (const event of alarms) {
    const alarm = ALARM_EVENT_BY_TYPE.get(event.type);
    if (alarm) await openEventAlert(ctx, alarm, deviceSubject, event.data, deviceAlerts);
  }
}

/** The subject's active alerts by rule, as read for this report. */
function activeByRule(state: ReportState, subject: SubjectLabel): Map<string, AlertRow> {
  return new Map(
    state.alerts
      .filter((a) => a.subject_type === subject.type && a.subject_id === subject.id)
      .map((a) => [a.rule, a]),
  );
}

/**
 * Runs each rule over its metric's readings, metric by metric in name order, and stores the sustained
 * breaches that started, moved or ended, in one write. A rule's alert as read for the report can only be
 * stale if another transaction changed it, which the conditional writes detect.
 */
async function applyPlans(
  ctx: Context,
  deviceId: string,
  subject: SubjectLabel,
  plans: readonly MetricPlan[],
  state: ReportState,
  extremes: ReadonlyMap<string, ReadonlyMap<number, number>>,
): Promise<void> {
  const active = activeByRule(state, subject);
  const breaches: Array<{ rule: string; since: number | null }> = [];
  for (const { metric, rules, readings } of plans) {
    for (const rule of rules) {
      const seen =
        rule.window_s === null
          ? readings
          : changesOverWindow(readings, extremes.get(windowOf(metric, rule)) ?? new Map());
      // A breach start beyond the bound (stored with a wrong clock) is no start: the run counts afresh.
      const stored = rule.for_s === null ? null : (state.breaches.get(rule.name) ?? null);
      const before = stored !== null && stored > ctx.futureBound ? null : stored;
      const { runs, since } = levelRuns(rule, seen, before);
      if (rule.for_s !== null && since !== before) breaches.push({ rule: rule.name, since });
      await applyRuns(ctx, rule, subject, runs, active.get(rule.name) ?? null);
    }
  }
  await saveBreaches(ctx.trx, { farmId: ctx.farmId, deviceId }, breaches);
}

function newAlertRow(
  ctx: Context,
  key: AlertKey,
  fields: { severity: AlertSeverity; title: string; reason: string; words: AlertWords },
): AlertRow {
  return {
    id: newId('alert', ctx.now),
    farm_id: key.farmId,
    severity: fields.severity,
    severity_rank: SEVERITY_RANK[fields.severity],
    title: fields.title,
    reason: fields.reason,
    rule: key.rule,
    subject_type: key.subjectType,
    subject_id: key.subjectId,
    status: 'open',
    created_at: ctx.now,
    updated_at: ctx.now,
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    words: JSON.stringify(fields.words),
  };
}

/** Opens an alert and emits `alert.created`; null when another active alert holds the slot. */
async function openAlert(ctx: Context, row: AlertRow): Promise<AlertRow | null> {
  const inserted = await insertActiveAlert(ctx.trx, row);
  if (inserted) await emitEvent(ctx.trx, ctx.farmId, 'alert.created', toAlert(inserted), ctx.now);
  if (inserted) metrics.alertsOpened.inc({ rule: inserted.rule, severity: inserted.severity });
  return inserted;
}

/**
 * Consecutive readings at the same level (urgent, watch or clear) act like one: the first makes the
 * change, the later ones only refresh the reason. So a report is evaluated as runs of levels, the
 * first reading of a run timing an escalation and the last one giving the reason; readings in the
 * hysteresis band are skipped. This keeps a report of many readings to a few statements.
 */
interface Run {
  level: 'urgent' | 'watch' | 'clear';
  first: Reading;
  last: Reading;
  /** For a sustained rule, the reading time since which the condition has held. */
  since: number | null;
}

/**
 * A sustained rule (`for_s`) counts a reading at or beyond watch only once every reading since the
 * first of its unbroken run has been at or beyond the line for `for_s` by reading time; any other
 * reading breaks the run. `since` carries the run's start in and out, across reports.
 */
function levelRuns(
  rule: EngineRule,
  readings: readonly Reading[],
  since: number | null,
): { runs: Run[]; since: number | null } {
  const runs: Run[] = [];
  let held = since;
  for (const reading of readings) {
    const level = classifyReading(rule, reading.value);
    if (level === 'urgent' || level === 'watch') {
      held ??= reading.at;
      if (rule.for_s !== null && reading.at - held < rule.for_s * 1000) continue;
    } else {
      held = null;
    }
    if (level === 'between') continue;
    const current = runs.at(-1);
    if (current?.level === level) current.last = reading;
    else runs.push({ level, first: reading, last: reading, since: rule.for_s === null ? null : held });
  }
  return { runs, since: held };
}

async function applyRuns(
  ctx: Context,
  rule: EngineRule,
  subject: SubjectLabel,
  runs: readonly Run[],
  known: AlertRow | null,
): Promise<void> {
  const key: AlertKey = {
    farmId: ctx.farmId,
    rule: rule.name,
    subjectType: subject.type,
    subjectId: subject.id,
  };
  // The active alert as this transaction last left it; every write is conditional on the state it
  // expects, and a write that finds the alert changed by someone else re-reads it.
  let active = known;
  for (const run of runs) active = await applyRun(ctx, key, rule, subject, run, active);
}

/** Applies one run of readings; returns the active alert afterwards (null when none). */
async function applyRun(
  ctx: Context,
  key: AlertKey,
  rule: EngineRule,
  subject: SubjectLabel,
  run: Run,
  known: AlertRow | null,
): Promise<AlertRow | null> {
  let active = known;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) active = (await findActiveAlert(ctx.trx, key)) ?? null;
    if (run.level === 'clear') {
      // Resolves whether open or acknowledged; a concurrent resolution already did the job.
      if (active) await resolveAlertRow(ctx.trx, active, ctx.now);
      return null;
    }
    const level = run.level;
    const reason = readingAlertReason(rule, subject, run.last, level, run.since);
    const words = readingAlertWords(rule, subject, run.last, level, run.since);
    if (!active) {
      const title = readingAlertTitle(rule, subject);
      const opened = await openAlert(ctx, newAlertRow(ctx, key, { severity: level, title, reason, words }));
      if (opened) return opened;
      continue; // another transaction opened it first: update that one instead
    }
    const updated = await updateActive(ctx, rule, subject, active, { ...run, level }, reason, words);
    if (updated) return updated;
  }
  throw new Error(`alert ${rule.name} for ${subject.type} ${subject.id} kept changing under evaluation`);
}

/**
 * A further crossing while an alert is active: a watch alert reaching the urgent line escalates
 * (severity and reason, logged as `alert.escalated` at the first urgent reading); a crossing at the
 * alert's own severity refreshes the reason with the latest value; a watch-level reading leaves an
 * urgent alert as is. Returns the alert as it now is, or null when it changed under us.
 */
async function updateActive(
  ctx: Context,
  rule: EngineRule,
  subject: SubjectLabel,
  active: AlertRow,
  run: Omit<Run, 'level'> & { level: 'urgent' | 'watch' },
  reason: string,
  words: AlertWords,
): Promise<AlertRow | null> {
  // The words follow the reason; an alert opened before they existed gets them now too.
  const wordsText = JSON.stringify(words);
  if (run.level === 'urgent' && active.severity !== 'urgent') {
    const escalated = await transitionAlert(
      ctx.trx,
      active.id,
      ACTIVE_STATUSES,
      {
        severity: 'urgent',
        severity_rank: SEVERITY_RANK.urgent,
        reason,
        words: wordsText,
        updated_at: ctx.now,
      },
      active.severity,
    );
    if (!escalated) return null;
    const crossing = run.first;
    await recordFarmEvent(
      ctx.trx,
      ctx.farmId,
      {
        type: ALERT_ESCALATED,
        subject_type: escalated.subject_type,
        subject_id: escalated.subject_id,
        data: {
          alert_id: escalated.id,
          rule: escalated.rule,
          from: active.severity,
          to: 'urgent',
          reason: readingAlertReason(rule, subject, crossing, 'urgent'),
          metric: crossing.metric,
          value: crossing.value,
          unit: crossing.unit,
        },
        at: crossing.at,
      },
      ctx.now,
    );
    return escalated;
  }
  if (run.level === active.severity && reason !== active.reason) {
    return transitionAlert(ctx.trx, active.id, ACTIVE_STATUSES, {
      reason,
      words: wordsText,
      updated_at: ctx.now,
    });
  }
  return active;
}

/**
 * A device alarm opens an alert at once, subject the device, unless one for the same event type is
 * already active. These alerts never resolve automatically: a person resolves them.
 */
async function openEventAlert(
  ctx: Context,
  alarm: AlarmEventType,
  subject: SubjectLabel,
  data: Record<string, unknown>,
  active: Map<string, AlertRow>,
): Promise<void> {
  if (active.has(alarm.type)) return;
  const key: AlertKey = {
    farmId: ctx.farmId,
    rule: alarm.type,
    subjectType: subject.type,
    subjectId: subject.id,
  };
  const title = eventAlertTitle(alarm, subject);
  const reason = eventAlertReason(alarm, subject, data);
  const words = eventAlertWords(alarm, subject, data);
  // A conflict here means a concurrent report opened the same alarm: nothing more to do.
  const opened = await openAlert(
    ctx,
    newAlertRow(ctx, key, { severity: alarm.severity, title, reason, words }),
  );
  if (opened) active.set(alarm.type, opened);
}
