/**
 * Alert titles and reasons in every language a person may choose (issue 45). The engine writes an alert's
 * English `title` and `reason` as it always has, and beside them its words: for each, a message key of this
 * catalog and the parameters (`alerts.words`, migration 0047). Notifications and the console render the words
 * in the reader's language; an alert without words (opened before they existed) is shown in English.
 *
 * Parameters are what the alert was about, as the engine knew it: names the farm gave ("House 2"), and
 * quantities written in the catalog's units as the English reason writes them ("26 ppm", "40.7°C"), so the
 * reader's units and number style are applied afterwards (display-units.ts `localizeQuantities`) in every
 * language alike. A parameter may name a term of this catalog (`terms`, alert-terms.ts): a built-in rule's
 * title or measure, a device alarm's name. The parameter keeps the English text, which is used when the
 * language has no such term; a farmer's own rule title is never a term, it is their text. A parameter may be
 * a sentence of its own (`parts`): an animal subject is its name and tag ("Bella (crotal 126)"), the farm's
 * name and tag kept as they are, the word for a tag the language's. Parameters ending in `_ms` are
 * durations, written in the language ("47 min", "2 h", "3 días"). Whole sentences only: every combination
 * (where the subject is, the rule's direction, with or without a start time) is its own message.
 */
import { formatMessage, type Message } from '../lib/message-format.ts';
import { ALERT_TERMS } from './alert-terms.ts';
import type { LanguageName } from './display-units.ts';

/** One sentence of an alert: a key of ALERT_WORDS, its parameters, and which parameters name a term. */
export interface AlertWord {
  key: string;
  params: Record<string, string | number>;
  /** Parameter name → term key (`rule.house.ammonia.title`); the parameter holds the English fallback. */
  terms?: Record<string, string>;
  /**
   * Parameter name → the parameter as a sentence of its own (an animal named by its name and tag,
   * `animal.named`), written in the language; the parameter holds the English text, which is used when the
   * part cannot be written (an alert stored before parts existed has none).
   */
  parts?: Record<string, AlertWord>;
}

/** An alert's title and reason as words (the `words` of an alert). */
export interface AlertWords {
  title: AlertWord;
  reason: AlertWord;
  /** A resolution's note ("resolved: North trough reported again …"), written after the reason. */
  note?: AlertWord;
}

const en = {
  // An animal as an alert's subject: its name and ear tag ({tag}: the tag as the farm wrote it).
  'animal.named': '{name} (tag {tag})',
  'animal.tag': 'tag {tag}',
  // An animal with neither name nor tag: its electronic id ({eid}: as its label prints it, eid.ts
  // `displayEid`), else its group ({group}: the name the farm gave it), else only what it is.
  'animal.eid': 'EID {eid}',
  'animal.untagged.group': 'an untagged animal in {group}',
  'animal.untagged': 'an untagged animal',

  // Readings crossing a rule's line. {rule}: the rule's title; {subject}: the house, device or animal.
  'reading.title.in': '{rule} in {subject}',
  'reading.title.at': '{rule} at {subject}',
  'reading.title.for': '{rule} for {subject}',
  // {measure}: what is measured; {value} and {line}: quantities; {device}: an animal's reporting device.
  'reading.high.urgent.in': '{measure} {value} in {subject} — at or above the urgent line of {line}',
  'reading.high.urgent.at': '{measure} {value} at {subject} — at or above the urgent line of {line}',
  'reading.high.urgent.for':
    '{measure} {value} for {subject} ({device}) — at or above the urgent line of {line}',
  'reading.high.watch.in': '{measure} {value} in {subject} — at or above the watch line of {line}',
  'reading.high.watch.at': '{measure} {value} at {subject} — at or above the watch line of {line}',
  'reading.high.watch.for':
    '{measure} {value} for {subject} ({device}) — at or above the watch line of {line}',
  'reading.low.urgent.in': '{measure} {value} in {subject} — at or below the urgent line of {line}',
  'reading.low.urgent.at': '{measure} {value} at {subject} — at or below the urgent line of {line}',
  'reading.low.urgent.for':
    '{measure} {value} for {subject} ({device}) — at or below the urgent line of {line}',
  'reading.low.watch.in': '{measure} {value} in {subject} — at or below the watch line of {line}',
  'reading.low.watch.at': '{measure} {value} at {subject} — at or below the watch line of {line}',
  'reading.low.watch.for':
    '{measure} {value} for {subject} ({device}) — at or below the watch line of {line}',
  // A sustained rule's reason says since when ({since}: an ISO time).
  'reading.high.urgent.in.since':
    '{measure} {value} in {subject} — at or above the urgent line of {line} since {since}',
  'reading.high.urgent.at.since':
    '{measure} {value} at {subject} — at or above the urgent line of {line} since {since}',
  'reading.high.urgent.for.since':
    '{measure} {value} for {subject} ({device}) — at or above the urgent line of {line} since {since}',
  'reading.high.watch.in.since':
    '{measure} {value} in {subject} — at or above the watch line of {line} since {since}',
  'reading.high.watch.at.since':
    '{measure} {value} at {subject} — at or above the watch line of {line} since {since}',
  'reading.high.watch.for.since':
    '{measure} {value} for {subject} ({device}) — at or above the watch line of {line} since {since}',
  'reading.low.urgent.in.since':
    '{measure} {value} in {subject} — at or below the urgent line of {line} since {since}',
  'reading.low.urgent.at.since':
    '{measure} {value} at {subject} — at or below the urgent line of {line} since {since}',
  'reading.low.urgent.for.since':
    '{measure} {value} for {subject} ({device}) — at or below the urgent line of {line} since {since}',
  'reading.low.watch.in.since':
    '{measure} {value} in {subject} — at or below the watch line of {line} since {since}',
  'reading.low.watch.at.since':
    '{measure} {value} at {subject} — at or below the watch line of {line} since {since}',
  'reading.low.watch.for.since':
    '{measure} {value} for {subject} ({device}) — at or below the watch line of {line} since {since}',
  // A rate rule: {change} moved within {window} ("1 h"); the rule watches for {watch}.
  'rate.rose.in':
    '{measure} rose {change} within {window} in {subject} — the rule watches for a change of {watch} or more in {window}',
  'rate.rose.at':
    '{measure} rose {change} within {window} at {subject} — the rule watches for a change of {watch} or more in {window}',
  'rate.rose.for':
    '{measure} rose {change} within {window} for {subject} ({device}) — the rule watches for a change of {watch} or more in {window}',
  'rate.fell.in':
    '{measure} fell {change} within {window} in {subject} — the rule watches for a change of {watch} or more in {window}',
  'rate.fell.at':
    '{measure} fell {change} within {window} at {subject} — the rule watches for a change of {watch} or more in {window}',
  'rate.fell.for':
    '{measure} fell {change} within {window} for {subject} ({device}) — the rule watches for a change of {watch} or more in {window}',

  // A device alarm. {alarm}: the alarm's name; {type}: its event type; {details}: the data it sent.
  'event.title': '{alarm}: {subject}',
  'event.reason': '{subject} reported {type}. {description}',
  'event.reason.details': '{subject} reported {type}: {details}.',

  // device.quiet. {silent_ms}: how long; {usual_ms}: its usual interval; {last}: ISO time; {type}: device type.
  'quiet.title': 'No reports from {device}',
  'quiet.reason':
    '{device} has sent no report for {silent_ms} (usually every {usual_ms}); last report {last}',
  'quiet.reason.unknown':
    '{device} has sent no report for {silent_ms} (usual interval unknown); last report {last}',
  'quiet.reason.urgent':
    '{device} has sent no report for {silent_ms} (usually every {usual_ms}); last report {last} — a {type} silent {hours} h or more is urgent',
  'quiet.reason.unknown.urgent':
    '{device} has sent no report for {silent_ms} (usual interval unknown); last report {last} — a {type} silent {hours} h or more is urgent',

  // device.clock. {count}: times refused; {furthest} and {now}: ISO times; {tolerance}: seconds.
  'clock.title': '{rule}: {device}',
  'clock.reason': {
    one: "{device} dated a reading or event, more than {tolerance} s ahead of the server's clock ({now}); they were not stored. Set the device's clock, or leave at out.",
    other:
      "{device} dated {count} readings or events, more than {tolerance} s ahead of the server's clock ({now}); they were not stored. Set the device's clock, or leave at out.",
  },
  'clock.reason.furthest': {
    one: "{device} dated a reading or event up to {furthest}, more than {tolerance} s ahead of the server's clock ({now}); they were not stored. Set the device's clock, or leave at out.",
    other:
      "{device} dated {count} readings or events up to {furthest}, more than {tolerance} s ahead of the server's clock ({now}); they were not stored. Set the device's clock, or leave at out.",
  },

  // A resolution's note after the reason ({at}: an ISO time); `reason.with_note` joins the two.
  'reason.with_note': '{reason} — {note}',
  'resolved.reported_again': 'resolved: {device} reported again {at}',
  'resolved.clock': 'resolved: {device} reported with times within the tolerance {at}',
  'resolved.rule_deleted': 'resolved: rule {rule} was deleted',
  'resolved.rule_disabled': 'resolved: rule {rule} was disabled',
  'resolved.rule_changed': 'resolved: rule {rule} was changed',
  'resolved.device_deleted': 'resolved: device {device} was deleted',
  'resolved.intake': 'resolved: intake on {day} back within {pct}% of the median',

  // group.intake_drop. {day}: the local day (YYYY-MM-DD); {value} and {median}: quantities; {below} and {drop}: percentages.
  'intake.title': '{measure} dropped for {group}',
  'intake.reason':
    '{measure} for {group} on {day}: {value}, {below} below its 7-day median of {median} (the rule opens at more than {drop} below)',

  // Terms (alert-terms.ts): the built-in rules' titles and measures, the alarms' names, the intake measures.
  ...ALERT_TERMS.en,
  // The alarms' descriptions: whole sentences, so not terms (the settings page never shows them).
  'alarm.predator.detected.description': 'A vision pod or guardian saw a predator near the animals.',
  'alarm.safety_edge.stop.description': 'The safety edge of a house touched something and stopped the drive.',
  'alarm.door.jammed.description': 'A pop door did not finish opening or closing.',
  // What a reason says was reported: English writes the event's type, as its stored reasons always have.
  'alarm.predator.detected.reported': 'predator.detected',
  'alarm.safety_edge.stop.reported': 'safety_edge.stop',
  'alarm.door.jammed.reported': 'door.jammed',
} as const satisfies Record<string, Message>;

export type AlertWordKey = keyof typeof en;

const es: Record<AlertWordKey, Message> = {
  // «Crotal», as the brief's herd book calls an ear tag (src/modules/brief/messages.ts `animal.tag`).
  'animal.named': '{name} (crotal {tag})',
  'animal.tag': 'crotal {tag}',
  'animal.eid': 'EID {eid}',
  'animal.untagged.group': 'un animal sin crotal en {group}',
  'animal.untagged': 'un animal sin crotal',

  'reading.title.in': '{rule} en {subject}',
  'reading.title.at': '{rule} en {subject}',
  'reading.title.for': '{rule}: {subject}',
  'reading.high.urgent.in': '{measure} {value} en {subject}: igual o por encima del umbral urgente de {line}',
  'reading.high.urgent.at': '{measure} {value} en {subject}: igual o por encima del umbral urgente de {line}',
  'reading.high.urgent.for':
    '{measure} {value} de {subject} ({device}): igual o por encima del umbral urgente de {line}',
  'reading.high.watch.in':
    '{measure} {value} en {subject}: igual o por encima del umbral de atención de {line}',
  'reading.high.watch.at':
    '{measure} {value} en {subject}: igual o por encima del umbral de atención de {line}',
  'reading.high.watch.for':
    '{measure} {value} de {subject} ({device}): igual o por encima del umbral de atención de {line}',
  'reading.low.urgent.in': '{measure} {value} en {subject}: igual o por debajo del umbral urgente de {line}',
  'reading.low.urgent.at': '{measure} {value} en {subject}: igual o por debajo del umbral urgente de {line}',
  'reading.low.urgent.for':
    '{measure} {value} de {subject} ({device}): igual o por debajo del umbral urgente de {line}',
  'reading.low.watch.in':
    '{measure} {value} en {subject}: igual o por debajo del umbral de atención de {line}',
  'reading.low.watch.at':
    '{measure} {value} en {subject}: igual o por debajo del umbral de atención de {line}',
  'reading.low.watch.for':
    '{measure} {value} de {subject} ({device}): igual o por debajo del umbral de atención de {line}',
  'reading.high.urgent.in.since':
    '{measure} {value} en {subject}: igual o por encima del umbral urgente de {line} desde {since}',
  'reading.high.urgent.at.since':
    '{measure} {value} en {subject}: igual o por encima del umbral urgente de {line} desde {since}',
  'reading.high.urgent.for.since':
    '{measure} {value} de {subject} ({device}): igual o por encima del umbral urgente de {line} desde {since}',
  'reading.high.watch.in.since':
    '{measure} {value} en {subject}: igual o por encima del umbral de atención de {line} desde {since}',
  'reading.high.watch.at.since':
    '{measure} {value} en {subject}: igual o por encima del umbral de atención de {line} desde {since}',
  'reading.high.watch.for.since':
    '{measure} {value} de {subject} ({device}): igual o por encima del umbral de atención de {line} desde {since}',
  'reading.low.urgent.in.since':
    '{measure} {value} en {subject}: igual o por debajo del umbral urgente de {line} desde {since}',
  'reading.low.urgent.at.since':
    '{measure} {value} en {subject}: igual o por debajo del umbral urgente de {line} desde {since}',
  'reading.low.urgent.for.since':
    '{measure} {value} de {subject} ({device}): igual o por debajo del umbral urgente de {line} desde {since}',
  'reading.low.watch.in.since':
    '{measure} {value} en {subject}: igual o por debajo del umbral de atención de {line} desde {since}',
  'reading.low.watch.at.since':
    '{measure} {value} en {subject}: igual o por debajo del umbral de atención de {line} desde {since}',
  'reading.low.watch.for.since':
    '{measure} {value} de {subject} ({device}): igual o por debajo del umbral de atención de {line} desde {since}',
  'rate.rose.in':
    '{measure} subió {change} en {window} en {subject}: la regla vigila un cambio de {watch} o más en {window}',
  'rate.rose.at':
    '{measure} subió {change} en {window} en {subject}: la regla vigila un cambio de {watch} o más en {window}',
  'rate.rose.for':
    '{measure} subió {change} en {window} de {subject} ({device}): la regla vigila un cambio de {watch} o más en {window}',
  'rate.fell.in':
    '{measure} bajó {change} en {window} en {subject}: la regla vigila un cambio de {watch} o más en {window}',
  'rate.fell.at':
    '{measure} bajó {change} en {window} en {subject}: la regla vigila un cambio de {watch} o más en {window}',
  'rate.fell.for':
    '{measure} bajó {change} en {window} de {subject} ({device}): la regla vigila un cambio de {watch} o más en {window}',

  'event.title': '{alarm}: {subject}',
  'event.reason': '{subject} informó {type}. {description}',
  'event.reason.details': '{subject} informó {type}: {details}.',

  'quiet.title': 'Sin reportes de {device}',
  'quiet.reason':
    '{device} no ha enviado ningún reporte en {silent_ms} (suele hacerlo cada {usual_ms}); último reporte: {last}',
  'quiet.reason.unknown':
    '{device} no ha enviado ningún reporte en {silent_ms} (intervalo habitual desconocido); último reporte: {last}',
  'quiet.reason.urgent':
    '{device} no ha enviado ningún reporte en {silent_ms} (suele hacerlo cada {usual_ms}); último reporte: {last}. Un {type} sin reportar {hours} h o más es urgente',
  'quiet.reason.unknown.urgent':
    '{device} no ha enviado ningún reporte en {silent_ms} (intervalo habitual desconocido); último reporte: {last}. Un {type} sin reportar {hours} h o más es urgente',

  'clock.title': '{rule}: {device}',
  'clock.reason': {
    one: '{device} fechó una lectura o evento más de {tolerance} s por delante del reloj del servidor ({now}); no se guardó. Ajuste el reloj del dispositivo o deje de enviar «at».',
    other:
      '{device} fechó {count} lecturas o eventos más de {tolerance} s por delante del reloj del servidor ({now}); no se guardaron. Ajuste el reloj del dispositivo o deje de enviar «at».',
  },
  'clock.reason.furthest': {
    one: '{device} fechó una lectura o evento hasta {furthest}, más de {tolerance} s por delante del reloj del servidor ({now}); no se guardó. Ajuste el reloj del dispositivo o deje de enviar «at».',
    other:
      '{device} fechó {count} lecturas o eventos hasta {furthest}, más de {tolerance} s por delante del reloj del servidor ({now}); no se guardaron. Ajuste el reloj del dispositivo o deje de enviar «at».',
  },

  'reason.with_note': '{reason} — {note}',
  'resolved.reported_again': 'resuelta: {device} volvió a reportar el {at}',
  'resolved.clock': 'resuelta: {device} reportó con horas dentro de la tolerancia el {at}',
  'resolved.rule_deleted': 'resuelta: se eliminó la regla {rule}',
  'resolved.rule_disabled': 'resuelta: se desactivó la regla {rule}',
  'resolved.rule_changed': 'resuelta: se cambió la regla {rule}',
  'resolved.device_deleted': 'resuelta: se eliminó el dispositivo {device}',
  'resolved.intake': 'resuelta: el consumo del {day} volvió a quedar dentro del {pct}% de la mediana',

  'intake.title': 'Bajó el consumo de {measure} en {group}',
  'intake.reason':
    'Consumo de {measure} de {group} el {day}: {value}, {below} por debajo de su mediana de 7 días de {median} (la alerta se abre con más de {drop} por debajo)',

  ...ALERT_TERMS.es,
  'alarm.predator.detected.description': 'Una cámara o un guardián vio un depredador cerca de los animales.',
  'alarm.safety_edge.stop.description':
    'El borde de seguridad de un gallinero tocó algo y detuvo la tracción.',
  'alarm.door.jammed.description': 'Una trampilla no terminó de abrirse o cerrarse.',
  'alarm.predator.detected.reported': 'un depredador',
  'alarm.safety_edge.stop.reported': 'un paro por el borde de seguridad',
  'alarm.door.jammed.reported': 'una trampilla atascada',
};

/** Every language's alert words: English is the source; each language has every key, same placeholders. */
export const ALERT_WORDS: Readonly<Record<LanguageName, Readonly<Record<AlertWordKey, Message>>>> = {
  en,
  es,
};

const DURATION: Record<LanguageName, { min: string; h: string; days: Message }> = {
  en: { min: '{n} min', h: '{n} h', days: '{count} days' },
  es: { min: '{n} min', h: '{n} h', days: { one: '{count} día', other: '{count} días' } },
};

/** "47 min", "2.5 h", "3 days" (lib/time.ts formatDuration's steps), in the language; numbers as catalog text. */
function duration(ms: number, language: LanguageName): string {
  const words = DURATION[language];
  if (ms < 3_600_000) return words.min.replace('{n}', String(Math.max(1, Math.round(ms / 60_000))));
  if (ms < 2 * 86_400_000) return words.h.replace('{n}', String(Math.round((ms / 3_600_000) * 2) / 2));
  const count = Math.floor(ms / 86_400_000);
  return formatMessage(language, words.days, { count: String(count) });
}

/**
 * One alert sentence in a language, or null when the key is unknown there (a newer server's key): the caller
 * shows the English text it has. Numbers in quantities are left as written (English digits, catalog units)
 * for `localizeQuantities`; a term the language lacks, or a part it cannot write (an unknown key, or a part
 * with parts of its own: one level only), keeps the parameter's own text.
 */
export function renderAlertWord(language: LanguageName, word: AlertWord): string | null {
  const catalog: Readonly<Record<string, Message>> = ALERT_WORDS[language] ?? ALERT_WORDS.en;
  const message = catalog[word.key];
  if (message === undefined) return null;
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(word.params ?? {})) {
    const term = word.terms?.[name];
    const termText = term === undefined ? undefined : catalog[term];
    const part = word.parts?.[name];
    const partText = isWord(part) && part.parts === undefined ? renderAlertWord(language, part) : null;
    if (typeof termText === 'string') params[name] = termText;
    else if (partText !== null) params[name] = partText;
    else if (name.endsWith('_ms') && typeof value === 'number') params[name] = duration(value, language);
    else params[name] = String(value);
  }
  // Counts choose the plural form; written as plain digits like every other number of a reason.
  const count = word.params?.count;
  return formatMessage(language, message, {
    ...params,
    ...(count === undefined ? {} : { count: String(count) }),
  });
}

/**
 * An alert's reason in a language with its resolution's note when it has one ("… — resuelta: North trough
 * volvió a reportar el …"), or null when a key is unknown there (the caller shows the English reason, which
 * carries the note too).
 */
export function renderAlertReason(language: LanguageName, words: AlertWords): string | null {
  const reason = renderAlertWord(language, words.reason);
  if (reason === null || !isWord(words.note)) return reason;
  const note = renderAlertWord(language, words.note);
  if (note === null) return null;
  const catalog: Readonly<Record<string, Message>> = ALERT_WORDS[language] ?? ALERT_WORDS.en;
  return formatMessage(language, catalog['reason.with_note'] ?? '{reason} — {note}', { reason, note });
}

/** The words stored on an alert (`alerts.words` JSON text), or null when absent or not readable. */
export function parseAlertWords(text: string | null | undefined): AlertWords | null {
  if (!text) return null;
  try {
    return alertWordsOf(JSON.parse(text));
  } catch {
    return null;
  }
}

/** Words already parsed (an alert as the API and webhooks give it), or null when they are not words. */
export function alertWordsOf(value: unknown): AlertWords | null {
  if (typeof value === 'string') return parseAlertWords(value);
  const words = value as Partial<AlertWords> | null | undefined;
  return isWord(words?.title) && isWord(words?.reason) ? (words as AlertWords) : null;
}

function isWord(value: unknown): value is AlertWord {
  if (!value || typeof value !== 'object') return false;
  const w = value as Record<string, unknown>;
  return typeof w.key === 'string' && !!w.params && typeof w.params === 'object';
}
