/**
 * What a notification says: titles, bodies and links, for push, ntfy and email alike, in the person's
 * language (messages.ts) with quantities in their units (an alert's reason is written in the catalog's
 * units: src/domain/display-units.ts rewrites each quantity). Pure.
 */
import type { AlertSeverity } from '../../db/tables/alerts.ts';
import { type AlertWords, renderAlertReason, renderAlertWord } from '../../domain/alert-words.ts';
import { type LanguageName, localizeQuantities, type UnitSystem } from '../../domain/display-units.ts';
import { localClock } from '../../lib/local-time.ts';
import { formatMessage, type MessageParams } from '../../lib/message-format.ts';
import { NOTICE_MESSAGES, type NoticeKey } from './messages.ts';

/** How a person reads: their language and units (PATCH /v1/me). */
export interface Reader {
  language: LanguageName;
  units: UnitSystem;
}

export const DEFAULT_READER: Reader = { language: 'en', units: 'metric' };

/** One message of the notifications' catalog, in the reader's language. */
export function say(reader: Reader, key: NoticeKey, params: MessageParams = {}): string {
  const catalog = NOTICE_MESSAGES[reader.language] ?? NOTICE_MESSAGES.en;
  return formatMessage(reader.language, catalog[key], params);
}

/** A sentence written in catalog units, in the reader's units and number style. */
export function inUnitsOf(reader: Reader, text: string): string {
  return localizeQuantities(text, { units: reader.units, locale: reader.language });
}

export interface AlertFacts {
  id: string;
  severity: AlertSeverity;
  title: string;
  reason: string;
  rule: string;
  created_at: number;
  /** The title and reason as alert words (src/domain/alert-words.ts); null or absent: English only. */
  words?: AlertWords | null;
}

/**
 * The alert's title or reason in the reader's language and units: rendered from its words when it has them
 * (English readers get the stored English, which also carries a resolution's note), else the English text.
 */
export function alertText(reader: Reader, alert: AlertFacts, part: 'title' | 'reason'): string {
  const words = reader.language === 'en' ? undefined : (alert.words ?? undefined);
  const text =
    (words &&
      (part === 'reason'
        ? renderAlertReason(reader.language, words)
        : renderAlertWord(reader.language, words.title))) ??
    alert[part];
  return inUnitsOf(reader, text);
}

const SEVERITY_KEY: Record<AlertSeverity, NoticeKey> = {
  urgent: 'severity_urgent',
  watch: 'severity_watch',
  info: 'severity_info',
};

/** The alert's page in the console. */
export function alertUrl(publicUrl: string, alertId: string): string {
  return `${publicUrl}/alerts?alert=${encodeURIComponent(alertId)}`;
}

/** The console page where an emailed acknowledge link lands (one button; the GET changes nothing). */
export function ackPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/ack/${token}`;
}

export function alertNotice(
  alert: AlertFacts,
  farm: { name: string; timezone: string },
  step: number,
  reader: Reader = DEFAULT_READER,
) {
  return {
    title: say(reader, step > 0 ? 'alert_title_again' : 'alert_title', {
      severity: say(reader, SEVERITY_KEY[alert.severity]),
      title: alertText(reader, alert, 'title'),
    }),
    body: say(reader, 'alert_body', {
      reason: alertText(reader, alert, 'reason'),
      farm: farm.name,
      time: localClock(alert.created_at, farm.timezone),
    }),
  };
}

export function resolvedNotice(
  alert: AlertFacts,
  farm: { name: string; timezone: string },
  at: number,
  reader: Reader = DEFAULT_READER,
) {
  return {
    title: say(reader, 'resolved_title', { title: alertText(reader, alert, 'title') }),
    body: say(reader, 'resolved_body', {
      reason: alertText(reader, alert, 'reason'),
      farm: farm.name,
      time: localClock(at, farm.timezone),
    }),
  };
}

/** The plain-text email of a notice. */
export function emailText(
  notice: {
    title: string;
    body: string;
    url: string;
    ackUrl: string | null;
    farmName: string;
  },
  reader: Reader = DEFAULT_READER,
): string {
  const lines = [notice.title, '', notice.body, '', say(reader, 'email_open_alert', { url: notice.url })];
  if (notice.ackUrl) lines.push(say(reader, 'email_acknowledge', { url: notice.ackUrl }));
  lines.push('', say(reader, 'email_signature', { farm: notice.farmName }));
  return `${lines.join('\n')}\n`;
}
