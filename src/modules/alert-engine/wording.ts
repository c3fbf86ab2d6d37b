/**
 * Alert titles and reasons, written for a farmer reading them on a phone at night: which house or
 * animal, which measurement, the value with its unit, and the line it crossed.
 */
import { ALERT_WORDS, type AlertWord, type AlertWords } from '../../domain/alert-words.ts';
import type { AlarmEventType } from '../../domain/devices.ts';
import { METRIC_BY_NAME } from '../../domain/metrics.ts';
import type { AlertRule } from '../../domain/rules.ts';
import { toIso } from '../../lib/time.ts';

/** Who or what an alert is about, with the words used to name it. */
export interface SubjectLabel {
  type: 'device' | 'animal';
  id: string;
  /** "House 2", "Daisy (tag 114)". */
  name: string;
  /** The name as alert words, when a language writes it its own way: an animal's name and tag (`animal.named`). */
  words?: AlertWord;
  /** The reporting device's name and type, for animal subjects ("via Bolus 7"). */
  device: { name: string; type: string };
}

/**
 * What wording needs of a rule: a default from the registry, or a farm's own (any metric name; a
 * rate rule has its window).
 */
export type WordedRule = Pick<AlertRule, 'title' | 'measure' | 'direction' | 'watch' | 'urgent'> & {
  /** The rule's name: a built-in rule's title and measure are terms of the alert words. */
  name?: string;
  metric: string;
  window_s?: number | null;
};

/** "45 min", "2 h", "90 s". */
function formatSpan(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** "26 ppm", "12%", "40.7°C": numbers as sent (trimmed to 2 decimals), the unit as people write it. */
export function formatValue(value: number, unit: string | null): string {
  const n = Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
  if (!unit) return n;
  return unit === '%' || unit.startsWith('°') ? `${n}${unit}` : `${n} ${unit}`;
}

/** "in House 2", "at North trough", "for Daisy (tag 114)". */
function where(subject: SubjectLabel): string {
  if (subject.type === 'animal') return `for ${subject.name}`;
  return subject.device.type === 'house' ? `in ${subject.name}` : `at ${subject.name}`;
}

export function readingAlertTitle(rule: WordedRule, subject: SubjectLabel): string {
  return `${rule.title} ${where(subject)}`;
}

/**
 * "Ammonia 26 ppm in House 2 — at or above the urgent line of 25 ppm"; a sustained rule adds
 * "since 2026-05-01T04:10:00.000Z" (reading time), so the farmer knows how long it has lasted.
 */
export function readingAlertReason(
  rule: WordedRule,
  subject: SubjectLabel,
  reading: { value: number; unit: string | null },
  severity: 'urgent' | 'watch',
  since: number | null = null,
): string {
  const line = severity === 'urgent' ? rule.urgent : rule.watch;
  // A catalog metric's reading is stored in the catalog's unit (ingest converts), and the rule's lines are
  // in it too: the reason speaks it. Other metrics keep the unit the device sent.
  const unit = METRIC_BY_NAME.get(rule.metric)?.unit ?? reading.unit ?? null;
  const via = subject.type === 'animal' ? ` (${subject.device.name})` : '';
  const window = rule.window_s ?? null;
  if (window !== null) {
    // For a rate rule the value is the change over the window, not a level.
    const moved = reading.value < 0 ? 'fell' : 'rose';
    return (
      `${rule.measure} ${moved} ${formatValue(Math.abs(reading.value), unit)} within ` +
      `${formatSpan(window)} ${where(subject)}${via} — the rule watches for a change of ` +
      `${formatValue(rule.watch, unit)} or more in ${formatSpan(window)}`
    );
  }
  const side = rule.direction === 'high' ? 'at or above' : 'at or below';
  return (
    `${rule.measure} ${formatValue(reading.value, unit)} ${where(subject)}${via} — ` +
    `${side} the ${severity} line of ${formatValue(line ?? rule.watch, unit)}` +
    (since === null ? '' : ` since ${toIso(since)}`)
  );
}

/** "Predator detected: Guardian 1", "Safety edge stopped the house: House 2". */
export function eventAlertTitle(alarm: AlarmEventType, subject: SubjectLabel): string {
  return `${alarm.title}: ${subject.name}`;
}

const MAX_DETAILS = 400;

function formatDataValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** "Guardian 1 reported predator.detected: species fox, confidence 0.92." */
export function eventAlertReason(
  alarm: AlarmEventType,
  subject: SubjectLabel,
  data: Record<string, unknown>,
): string {
  const details = Object.entries(data)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${formatDataValue(v)}`);
  const head = `${subject.name} reported ${alarm.type}`;
  if (details.length === 0) return `${head}. ${alarm.description}`;
  const text = details.join(', ');
  // A device can send a large data object; the full data stays in the farm event log.
  return `${head}: ${text.length > MAX_DETAILS ? `${text.slice(0, MAX_DETAILS - 1)}…` : text}.`;
}

/** Where the subject is, as the alert words' keys say it: in a house, at another device, for an animal. */
function place(subject: SubjectLabel): 'in' | 'at' | 'for' {
  if (subject.type === 'animal') return 'for';
  return subject.device.type === 'house' ? 'in' : 'at';
}

/**
 * The term keys of a rule's title and measure, when they are the built-in rule's own English words (a farm's
 * custom rule, or a title it wrote, stays its own text in every language).
 */
function ruleTerms(rule: WordedRule, names: { title: string; measure: string }): Record<string, string> {
  const terms: Record<string, string> = {};
  const en: Readonly<Record<string, unknown>> = ALERT_WORDS.en;
  if (rule.name === undefined) return terms;
  const title = `rule.${rule.name}.title`;
  const measure = `rule.${rule.name}.measure`;
  if (en[title] === rule.title) terms[names.title] = title;
  if (en[measure] === rule.measure) terms[names.measure] = measure;
  return terms;
}

function word(
  key: string,
  params: Record<string, string | number>,
  terms: Record<string, string> = {},
  subject?: SubjectLabel,
): AlertWord {
  const out: AlertWord = Object.keys(terms).length === 0 ? { key, params } : { key, params, terms };
  // The subject's own words, when it has them and the sentence names it.
  if (subject?.words && 'subject' in params) out.parts = { subject: subject.words };
  return out;
}

/** readingAlertTitle as alert words. */
export function readingTitleWords(rule: WordedRule, subject: SubjectLabel): AlertWord {
  const terms = ruleTerms(rule, { title: 'rule', measure: 'measure' });
  delete terms.measure;
  return word(`reading.title.${place(subject)}`, { rule: rule.title, subject: subject.name }, terms, subject);
}

/** readingAlertReason as alert words (the same quantities, in the catalog's units). */
export function readingReasonWords(
  rule: WordedRule,
  subject: SubjectLabel,
  reading: { value: number; unit: string | null },
  severity: 'urgent' | 'watch',
  since: number | null = null,
): AlertWord {
  const line = severity === 'urgent' ? rule.urgent : rule.watch;
  const unit = METRIC_BY_NAME.get(rule.metric)?.unit ?? reading.unit ?? null;
  const terms = ruleTerms(rule, { title: 'rule', measure: 'measure' });
  delete terms.rule;
  const params: Record<string, string> = { measure: rule.measure, subject: subject.name };
  if (subject.type === 'animal') params.device = subject.device.name;
  const window = rule.window_s ?? null;
  if (window !== null) {
    const moved = reading.value < 0 ? 'fell' : 'rose';
    Object.assign(params, {
      change: formatValue(Math.abs(reading.value), unit),
      window: formatSpan(window),
      watch: formatValue(rule.watch, unit),
    });
    return word(`rate.${moved}.${place(subject)}`, params, terms, subject);
  }
  params.value = formatValue(reading.value, unit);
  params.line = formatValue(line ?? rule.watch, unit);
  if (since !== null) params.since = toIso(since);
  const key = `reading.${rule.direction}.${severity}.${place(subject)}${since === null ? '' : '.since'}`;
  return word(key, params, terms, subject);
}

/** The alert words of a reading alert: its title and reason. */
export function readingAlertWords(
  rule: WordedRule,
  subject: SubjectLabel,
  reading: { value: number; unit: string | null },
  severity: 'urgent' | 'watch',
  since: number | null = null,
): AlertWords {
  return {
    title: readingTitleWords(rule, subject),
    reason: readingReasonWords(rule, subject, reading, severity, since),
  };
}

/** eventAlertTitle and eventAlertReason as alert words. */
export function eventAlertWords(
  alarm: AlarmEventType,
  subject: SubjectLabel,
  data: Record<string, unknown>,
): AlertWords {
  const en: Readonly<Record<string, unknown>> = ALERT_WORDS.en;
  const titleTerm = `alarm.${alarm.type}.title`;
  const descriptionTerm = `alarm.${alarm.type}.description`;
  const title = word(
    'event.title',
    { alarm: alarm.title, subject: subject.name },
    en[titleTerm] === alarm.title ? { alarm: titleTerm } : {},
    subject,
  );
  const reason = eventAlertReason(alarm, subject, data);
  const head = `${subject.name} reported ${alarm.type}`;
  // The event's type in a reason: its code in English, words in another language ("una trampilla atascada").
  const reportedTerm = `alarm.${alarm.type}.reported`;
  const reported: Record<string, string> = en[reportedTerm] === alarm.type ? { type: reportedTerm } : {};
  if (reason === `${head}. ${alarm.description}`) {
    return {
      title,
      reason: word(
        'event.reason',
        { subject: subject.name, type: alarm.type, description: alarm.description },
        {
          ...reported,
          ...(en[descriptionTerm] === alarm.description ? { description: descriptionTerm } : {}),
        },
        subject,
      ),
    };
  }
  // The data's own words (keys and values as the device sent them) are the same in every language.
  const details = reason.slice(head.length + 2, -1);
  return {
    title,
    reason: word(
      'event.reason.details',
      { subject: subject.name, type: alarm.type, details },
      reported,
      subject,
    ),
  };
}
