import { type Static, Type } from 'typebox';
import { DateTime, Nullable, OPTIONAL_BODY } from '../../http/schemas.ts';

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
  channels: Type.Object({ push: Severities, email: Severities }),
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
  farms: Type.Array(FarmNotificationSettingsSchema),
});

export const NotificationSettingsPatch = Type.Object(
  {
    farm_id: Type.String({ minLength: 1, description: 'The farm these settings are for.' }),
    channels: Type.Optional(
      Type.Object(
        { push: Type.Optional(Severities), email: Type.Optional(Severities) },
        { additionalProperties: false },
      ),
    ),
    quiet_hours: Type.Optional(Nullable(QuietHoursSchema)),
    muted_rules: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, uniqueItems: true }),
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
  channel: Type.Enum(['push', 'email']),
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
      Type.Enum(['push', 'email'], { description: 'Default: every channel you can receive.' }),
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
  status: Type.String(),
  usable: Type.Boolean({ description: 'False once used or expired.' }),
});
