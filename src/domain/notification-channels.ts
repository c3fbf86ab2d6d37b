/**
 * The notification channels, named once: the stored `notifications.channel`, a farm's escalation steps
 * (escalation.ts), a person's per-farm settings and the API's enums all take their names from here. How each
 * one renders, sends and reads its failures is its adapter (modules/notifications/channels/registry.ts,
 * which must have one adapter per name here). Shared with the console (its Account page lists them).
 */
export const NOTIFICATION_CHANNEL_INFO = {
  push: { label: 'Push to your browsers' },
  email: { label: 'Email' },
  ntfy: { label: 'ntfy (your topic)' },
} as const satisfies Record<string, { label: string }>;

export type NotificationChannel = keyof typeof NOTIFICATION_CHANNEL_INFO;

export const NOTIFICATION_CHANNELS = Object.keys(NOTIFICATION_CHANNEL_INFO) as NotificationChannel[];

export function isNotificationChannel(value: unknown): value is NotificationChannel {
  return typeof value === 'string' && Object.hasOwn(NOTIFICATION_CHANNEL_INFO, value);
}
