/** What a notification says: titles, bodies and links, for push and email alike. Pure. */
import type { AlertSeverity } from '../../db/tables/alerts.ts';
import { localClock } from '../../lib/local-time.ts';

export interface AlertFacts {
  id: string;
  severity: AlertSeverity;
  title: string;
  reason: string;
  rule: string;
  created_at: number;
}

const SEVERITY_WORD: Record<AlertSeverity, string> = { urgent: 'Urgent', watch: 'Watch', info: 'Info' };

/** The alert's page in the console. */
export function alertUrl(publicUrl: string, alertId: string): string {
  return `${publicUrl}/alerts?alert=${encodeURIComponent(alertId)}`;
}

/** The console page where an emailed acknowledge link lands (one button; the GET changes nothing). */
export function ackPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/ack/${token}`;
}

export function alertNotice(alert: AlertFacts, farm: { name: string; timezone: string }, step: number) {
  const again = step > 0 ? ' (not acknowledged yet)' : '';
  return {
    title: `${SEVERITY_WORD[alert.severity]}: ${alert.title}${again}`,
    body: `${alert.reason} — ${farm.name}, ${localClock(alert.created_at, farm.timezone)}`,
  };
}

export function resolvedNotice(alert: AlertFacts, farm: { name: string; timezone: string }, at: number) {
  return {
    title: `Resolved: ${alert.title}`,
    body: `${alert.reason} — ${farm.name}, resolved ${localClock(at, farm.timezone)}`,
  };
}

/** The plain-text email of a notice. */
export function emailText(notice: {
  title: string;
  body: string;
  url: string;
  ackUrl: string | null;
  farmName: string;
}): string {
  const lines = [notice.title, '', notice.body, '', `Open the alert: ${notice.url}`];
  if (notice.ackUrl) lines.push(`Acknowledge it: ${notice.ackUrl}`);
  lines.push(
    '',
    `— Farmstead, ${notice.farmName}. Change what you are sent on your Account page in the console.`,
  );
  return `${lines.join('\n')}\n`;
}
