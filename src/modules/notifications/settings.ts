/**
 * A person's notification settings for one farm: which severities each channel carries, quiet hours in the
 * farm's local time, muted rules, the morning brief by email, and "resolved" notices. Nothing stored means
 * the defaults of their role (each channel's adapter says its own), so notifications work with no set-up at
 * all. Pure: no database.
 */
import type { AlertSeverity } from '../../db/tables/alerts.ts';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../domain/notification-channels.ts';
import type { RoleName } from '../../domain/permissions.ts';
import { localParts, zonedTimeToUtc } from '../../lib/local-time.ts';
import { DAY_MS } from '../../lib/time.ts';
import { channel } from './channels/registry.ts';

export interface QuietHours {
  /** `HH:MM`, farm time. */
  start: string;
  end: string;
  /** Urgent alerts still come through (default true). */
  urgent_breaks_through: boolean;
}

export interface PersonFarmSettings {
  channels: Record<NotificationChannel, AlertSeverity[]>;
  quiet_hours: QuietHours | null;
  muted_rules: string[];
  /** `HH:MM` farm time for the morning brief by email; null: none. */
  brief_email_at: string | null;
  resolved_notices: boolean;
}

export const SEVERITIES: readonly AlertSeverity[] = ['urgent', 'watch', 'info'];
export const DEFAULT_BRIEF_TIME = '06:00';

/** Each channel's severities for a role with nothing stored. */
function defaultChannels(role: RoleName): Record<NotificationChannel, AlertSeverity[]> {
  return Object.fromEntries(
    NOTIFICATION_CHANNELS.map((name) => [name, channel(name).defaults(role)]),
  ) as Record<NotificationChannel, AlertSeverity[]>;
}

/**
 * Owners: urgent by push and email, watch by push (and ntfy, once they save a topic), the brief at 06:00;
 * crew: urgent by push (and ntfy).
 */
export function defaultSettings(role: RoleName): PersonFarmSettings {
  return {
    channels: defaultChannels(role),
    quiet_hours: null,
    muted_rules: [],
    brief_email_at: role === 'owner' ? DEFAULT_BRIEF_TIME : null,
    resolved_notices: true,
  };
}

/** Stored settings over the role's defaults (a member missing from what was stored keeps its default). */
export function effectiveSettings(
  role: RoleName,
  stored: Partial<PersonFarmSettings> | null,
): PersonFarmSettings {
  const base = defaultSettings(role);
  if (!stored) return base;
  return {
    // Only the channels there are (a channel removed from the registry leaves its stored member behind).
    channels: Object.fromEntries(
      NOTIFICATION_CHANNELS.map((name) => [name, stored.channels?.[name] ?? base.channels[name]]),
    ) as Record<NotificationChannel, AlertSeverity[]>,
    quiet_hours: stored.quiet_hours === undefined ? base.quiet_hours : stored.quiet_hours,
    muted_rules: stored.muted_rules ?? base.muted_rules,
    brief_email_at: stored.brief_email_at === undefined ? base.brief_email_at : stored.brief_email_at,
    resolved_notices: stored.resolved_notices ?? base.resolved_notices,
  };
}

function minutesOf(clock: string): number {
  const [h, m] = clock.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

/**
 * When a notice at `at` may go out under these quiet hours: `at` itself outside them (or for an urgent alert
 * that breaks through), else the instant they end (farm time).
 */
export function releaseTime(
  settings: PersonFarmSettings,
  severity: AlertSeverity | null,
  at: number,
  timeZone: string,
): number {
  const quiet = settings.quiet_hours;
  if (!quiet || quiet.start === quiet.end) return at;
  if (severity === 'urgent' && quiet.urgent_breaks_through) return at;
  const p = localParts(at, timeZone);
  const now = p.hour * 60 + p.minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const inside = start < end ? now >= start && now < end : now >= start || now < end;
  if (!inside) return at;
  // The end is today (farm time) when it is still ahead on the clock, else tomorrow.
  const day = now < end ? 0 : 1;
  const date = new Date(Date.UTC(p.year, p.month - 1, p.day) + day * DAY_MS);
  return zonedTimeToUtc(
    {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: Math.floor(end / 60),
      minute: end % 60,
    },
    timeZone,
  );
}
