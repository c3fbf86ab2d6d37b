import {
  type Static,
  type TNull,
  type TObject,
  type TOptional,
  type TSchema,
  type TUnion,
  Type,
} from 'typebox';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../domain/notification-channels.ts';
import { DateTime, Nullable, OPTIONAL_BODY } from '../../http/schemas.ts';
import { AlertWordsSchema } from '../alerts/schemas.ts';
import { CHANNELS, TARGET_CHANNELS, type TargetChannel } from './channels/registry.ts';

const Clock = (description: string) =>
  Type.String({
    pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
    description: `${description} HH:MM, farm time.`,
  });
const Severities = Type.Array(Type.Enum(['urgent', 'watch', 'info']), {
  maxItems: 3,
  uniqueItems: true,
  description: 'The alert severities this channel carries.',
});

/** One member per channel (channels/registry.ts), each of this schema. */
function perChannel<T extends TSchema>(schema: T): TObject<Record<NotificationChannel, T>> {
  return Type.Object(Object.fromEntries(NOTIFICATION_CHANNELS.map((name) => [name, schema]))) as TObject<
    Record<NotificationChannel, T>
  >;
}

type TargetOf<C extends TargetChannel> = (typeof CHANNELS)[C]['target'];

/** The PATCH's member of each channel a person sets up themselves (ntfy's topic). */
const TargetInputs = Object.fromEntries(
  TARGET_CHANNELS.map((name) => [name, Type.Optional(Nullable(CHANNELS[name].target.input))]),
) as { [C in TargetChannel]: TOptional<TUnion<[TargetOf<C>['input'], TNull]>> };

/** How each of those is shown back (a token never in full). */
const TargetViews = Object.fromEntries(
  TARGET_CHANNELS.map((name) => [name, Nullable(CHANNELS[name].target.view)]),
) as { [C in TargetChannel]: TUnion<[TargetOf<C>['view'], TNull]> };

export const VapidKeySchema = Type.Object({
  public_key: Type.String({
    description: "The server's VAPID public key (base64url): PushManager.subscribe's applicationServerKey.",
  }),
});

export const PushSubscriptionBody = Type.Object(
  {
    endpoint: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: "The browser's push service URL (https).",
    }),
    expirationTime: Type.Optional(Nullable(Type.Number())),
    keys: Type.Object(
      {
        p256dh: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_=-]+$' }),
        auth: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_=-]+$' }),
      },
      { additionalProperties: false },
    ),
    user_agent: Type.Optional(Type.String({ maxLength: 300, description: 'Shown in the list of browsers.' })),
  },
  {
    additionalProperties: false,
    description: "The browser's PushSubscription JSON (subscription.toJSON()).",
  },
);
export type PushSubscriptionInput = Static<typeof PushSubscriptionBody>;

export const PushSubscriptionSchema = Type.Object({
  id: Type.String(),
  endpoint_origin: Type.String({ description: "The push service's origin (the full endpoint is a secret)." }),
  user_agent: Nullable(Type.String()),
  created_at: DateTime(),
  last_sent_at: Nullable(DateTime('When a push last reached this browser’s push service.')),
});

const QuietHoursSchema = Type.Object(
  {
    start: Clock('When quiet hours begin,'),
    end: Clock('When they end,'),
    urgent_breaks_through: Type.Optional(
      Type.Boolean({ description: 'Urgent alerts still come through (default true).' }),
    ),
  },
  { additionalProperties: false },
);

export const FarmNotificationSettingsSchema = Type.Object({
  farm_id: Type.String(),
  farm_name: Type.String(),
  mode: Type.Enum(['live', 'test']),
  channels: perChannel(Severities),
  quiet_hours: Nullable(
    Type.Object({ start: Type.String(), end: Type.String(), urgent_breaks_through: Type.Boolean() }),
  ),
  muted_rules: Type.Array(Type.String()),
  brief_email_at: Nullable(
    Type.String({ description: 'The morning brief by email at HH:MM farm time; null: none.' }),
  ),
  resolved_notices: Type.Boolean({
    description: 'A short notice when an alert you were told about resolves.',
  }),
  customized: Type.Boolean({ description: 'False: the defaults of your role, nothing stored.' }),
});

export const NotificationSettingsSchema = Type.Object({
  email: Type.Object({
    available: Type.Boolean(),
    address: Type.String({ description: 'Where your email notices go (your sign-in email).' }),
    unavailable_reason: Nullable(Type.String()),
  }),
  ...TargetViews,
  farms: Type.Array(FarmNotificationSettingsSchema),
});

/** A PATCH's answer with farm_id: the farm's settings and what the person set up for every farm (ntfy's topic). */
export const PatchedNotificationSettingsSchema = Type.Object(
  { ...FarmNotificationSettingsSchema.properties, ...TargetViews },
  {
    description: 'With farm_id: that farm’s settings as they now are, and your ntfy topic (for every farm).',
  },
);

/** A PATCH's answer without farm_id (the topic alone): what the person set up for every farm. */
export const PatchedTargetsSchema = Type.Object(TargetViews, {
  description: 'Without farm_id (ntfy alone): your ntfy topic, for every farm.',
});

export const NotificationSettingsPatch = Type.Object(
  {
    farm_id: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The farm these settings are for (one of your real farms: the sample farm sends no notifications). Required with any of its settings (channels, quiet_hours, muted_rules, brief_email_at, resolved_notices); left out, the body gives ntfy alone.',
      }),
    ),
    ...TargetInputs,
    channels: Type.Optional(
      Type.Partial(perChannel(Severities), {
        additionalProperties: false,
        description:
          'Per channel, the severities it carries on this farm (a channel left out keeps its own).',
      }),
    ),
    quiet_hours: Type.Optional(Nullable(QuietHoursSchema)),
    muted_rules: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 100,
        uniqueItems: true,
        description:
          'Rules whose alerts you are not told of on this farm: each a rule of the farm, built in (GET /v1/catalog, including device alarms such as predator.detected) or its own (GET /v1/farms/{farm}/rules); another name is a 400 naming muted_rules[i].',
      }),
    ),
    brief_email_at: Type.Optional(Nullable(Clock('The morning brief by email at'))),
    resolved_notices: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type NotificationSettingsPatchInput = Static<typeof NotificationSettingsPatch>;

export const NotificationSchema = Type.Object({
  id: Type.String(),
  kind: Type.Enum(['alert', 'resolved', 'test', 'brief']),
  channel: Type.Enum(NOTIFICATION_CHANNELS),
  step: Type.Integer({ description: '0: the first notice of an alert; 1, 2…: escalation steps.' }),
  farm_id: Nullable(Type.String()),
  alert_id: Nullable(Type.String()),
  severity: Nullable(Type.String()),
  title: Type.String(),
  body: Type.String(),
  url: Type.String(),
  status: Type.Enum(['pending', 'sent', 'failed', 'skipped'], {
    description:
      'pending (waiting, or retrying), sent (the channel accepted it), failed, skipped (nothing to send).',
  }),
  attempts: Type.Integer(),
  answer: Nullable(Type.String({ description: 'What the channel answered last, or why nothing was sent.' })),
  created_at: DateTime(),
  next_attempt_at: Nullable(DateTime()),
  sent_at: Nullable(DateTime()),
});

export const TestNotificationBody = Type.Object(
  {
    channel: Type.Optional(
      Type.Enum(NOTIFICATION_CHANNELS, { description: 'Default: every channel you can receive.' }),
    ),
  },
  { additionalProperties: false, ...OPTIONAL_BODY },
);

export const AckTokenBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export const AckTokenParams = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export const AckTokenInfoSchema = Type.Object({
  alert_id: Type.String(),
  title: Type.String(),
  reason: Type.String(),
  words: Type.Optional(AlertWordsSchema),
  status: Type.String(),
  usable: Type.Boolean({ description: 'False once used or expired.' }),
});
