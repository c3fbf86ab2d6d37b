import type { NotificationChannel } from '../../domain/notification-channels.ts';
import type { AlertSeverity } from './alerts.ts';

export type { NotificationChannel } from '../../domain/notification-channels.ts';
export type NotificationKind = 'alert' | 'resolved' | 'test' | 'brief';
export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/** One row (id 1): the server's VAPID key pair (base64url), made on first start. */
export interface NotificationKeysTable {
  id: number;
  public_key: string;
  private_key: string;
  created_at: number;
}

/** A browser a person allowed notifications in (its PushSubscription). */
export interface PushSubscriptionsTable {
  id: string;
  person_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  user_agent: string | null;
  created_at: number;
  last_sent_at: number | null;
}

/**
 * Where a person is reached on a channel that needs set-up of its own, for every farm (ntfy: the topic's URL
 * and an optional access token, as JSON text). One row per person and channel.
 */
export interface NotificationTargetsTable {
  person_id: string;
  channel: NotificationChannel;
  target: string;
  updated_at: number;
}

/** A person's notification settings for one farm (JSON text); no row: the defaults of their role. */
export interface NotificationSettingsTable {
  person_id: string;
  farm_id: string;
  settings: string;
  updated_at: number;
}

export interface NotificationsTable {
  id: string;
  person_id: string;
  farm_id: string | null;
  alert_id: string | null;
  kind: NotificationKind;
  channel: NotificationChannel;
  step: number;
  dedupe_key: string;
  severity: AlertSeverity | null;
  title: string;
  body: string;
  url: string;
  status: NotificationStatus;
  attempt_count: number;
  next_attempt_at: number | null;
  locked_until: number | null;
  answer: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface NotificationAckTokensTable {
  token_hash: string;
  alert_id: string;
  person_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** An urgent alert's escalation: the last step notified and when the next is due. */
export interface AlertEscalationsTable {
  alert_id: string;
  farm_id: string;
  step: number;
  next_at: number;
}

export interface NotificationTables {
  notification_keys: NotificationKeysTable;
  push_subscriptions: PushSubscriptionsTable;
  notification_settings: NotificationSettingsTable;
  notification_targets: NotificationTargetsTable;
  notifications: NotificationsTable;
  notification_ack_tokens: NotificationAckTokensTable;
  alert_escalations: AlertEscalationsTable;
}
