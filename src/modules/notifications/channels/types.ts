/**
 * What a notification channel is: an adapter saying who it can reach, what it carries with nothing stored,
 * the set-up a person gives it (if any), how it renders a notice and how it sends one, and what its answers
 * mean (accepted, worth a retry, or final). delivery.ts, plan.ts, escalation.ts and service.ts only ever go
 * through the registry (registry.ts); one more channel is one more adapter file and its registry line.
 */
import type { TSchema } from 'typebox';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/schema.ts';
import type { AlertSeverity } from '../../../db/tables/alerts.ts';
import type { RoleName } from '../../../domain/permissions.ts';
import type { Reader } from '../content.ts';
import type { NotificationRow } from '../repository.ts';

/** The settings delivery reads (the channels' deadlines are the webhooks': a receiver is a receiver). */
export type DeliveryConfig = Pick<
  Config,
  | 'smtpUrl'
  | 'emailFrom'
  | 'publicUrl'
  | 'webhookAllowPrivate'
  | 'webhookTimeoutMs'
  | 'vapidKeys'
  | 'vapidSubject'
>;

/**
 * What this server is set up to send (the planner's and escalation's options carry the same flags): email
 * only with FARMSTEAD_SMTP_URL.
 */
export interface ServerSetup {
  email: boolean;
}

export function serverSetup(config: Pick<Config, 'smtpUrl'>): ServerSetup {
  return { email: config.smtpUrl !== null };
}

/** What one attempt came to. */
export interface Outcome {
  /** The channel took it (a push service's 201, an SMTP server's 250, ntfy's 200). */
  accepted: boolean;
  /** Nothing more to try (every browser gone, a permanent refusal, nothing to send to). */
  final: boolean;
  /** Nothing was sent, and nothing counts as an attempt. */
  skipped?: boolean;
  /** What the channel answered, for the delivery log (never a secret). */
  answer: string;
  /** A retry's earliest wait the channel asked for (a `Retry-After` header), in ms; delivery.ts caps it. */
  retryAfterMs?: number;
}

/** A notice as every channel renders it: the row, the farm's name and the acknowledge token. */
export interface Notice {
  row: NotificationRow;
  farmName: string | null;
  /** A fresh single-use acknowledge token for an open alert's notice; null for other kinds. */
  ackToken: string | null;
  publicUrl: string;
  /** The person's language and units: the words a channel adds (links, buttons) are in them. */
  reader: Reader;
}

/** The set-up a person gives a channel, the same for every farm (ntfy: the topic's URL and a token). */
export interface ChannelTarget<Stored = unknown> {
  /** The PATCH /v1/me/notification-settings member that sets it (null removes it). */
  input: TSchema;
  /** How it is shown back (secrets never in full). */
  view: TSchema;
  /** Checks a person's input (over what they saved before) and returns what is stored. Throws a 400 naming the member. */
  check(input: unknown, previous: Stored | null, options: { allowPrivate: boolean }): Promise<Stored>;
  show(stored: Stored): unknown;
}

export interface ChannelAdapter<Message = unknown, Stored = unknown> {
  /** The severities it carries for a role with nothing stored. */
  defaults(role: RoleName): AlertSeverity[];
  /** Why this server cannot send on it at all (email without SMTP), or null. */
  unavailable(server: ServerSetup): string | null;
  /** Which of these people it can reach (a browser subscribed, a topic saved). */
  reachable(db: Db, personIds: readonly string[]): Promise<Set<string>>;
  /** Why a person cannot be reached on it, in their words (the test notification's 409). */
  unreachable: string;
  target?: ChannelTarget<Stored>;
  /** The notice as this channel carries it. Pure. */
  render(notice: Notice): Message;
  /** Sends it to the row's person, and says what the answer means. Never throws. */
  send(db: Db, row: NotificationRow, message: Message, config: DeliveryConfig, now: number): Promise<Outcome>;
}

/** The acknowledge endpoint a notification's token is posted to (the service worker's and ntfy's button). */
export function ackEndpoint(publicUrl: string): string {
  return `${publicUrl}/v1/notifications/acknowledge`;
}

/** An urgent alert's notice: channels that can be loud are. */
export function isUrgentAlert(row: NotificationRow): boolean {
  return row.kind === 'alert' && row.severity === 'urgent';
}
