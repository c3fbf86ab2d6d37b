import { type Static, Type } from 'typebox';
import { describePermission, permission } from '../../domain/permissions.ts';
import { WEBHOOK_EVENT_RESOURCES, WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';
import { DateTime, Nullable } from '../../http/schemas.ts';

/** Which permission each event needs, as `alerts:read: alert.created, alert.resolved; …` (from the registry). */
const EVENT_PERMISSIONS = Object.entries(
  Object.groupBy(WEBHOOK_EVENTS, (type) =>
    describePermission(permission(WEBHOOK_EVENT_RESOURCES[type], 'read')),
  ),
)
  .map(([need, types]) => `${need} for ${(types ?? []).join(', ')}`)
  .join('; ');

const EVENTS_DESCRIPTION = `Event names to send: any of ${WEBHOOK_EVENTS.join(', ')}; or ["*"] alone for every event the key may read. Only events whose data the key may read (${EVENT_PERMISSIONS}); a restricted key's "*" is stored as the list of those events.`;

export const WebhookSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    url: Type.String({ description: 'Where events are POSTed.' }),
    events: Type.Array(Type.String(), { description: EVENTS_DESCRIPTION }),
    status: Type.Enum(['enabled', 'disabled'], {
      description: 'disabled: nothing is sent (set by PATCH, or when the receiver answered 410 Gone).',
    }),
    disabled_reason: Nullable(Type.String({ description: 'Why the webhook was disabled, when it is.' })),
    secret: Type.Optional(
      Type.String({
        description:
          'The signing secret (whsec_…): returned only once, on create. Verify Service-Signature with it.',
      }),
    ),
    created_at: DateTime(),
  },
  { $id: 'Webhook', title: 'Webhook' },
);

export const WebhookAttemptSchema = Type.Object(
  {
    number: Type.Integer({ description: '1 for the first attempt.' }),
    trigger: Type.Enum(['scheduled', 'manual'], {
      description: 'manual: sent by POST …/deliveries/{delivery_id}/retry.',
    }),
    at: DateTime('When the attempt started.'),
    duration_ms: Type.Integer(),
    status_code: Nullable(Type.Integer({ description: "The receiver's HTTP status, if it answered." })),
    error: Nullable(
      Type.String({
        description: 'Why the attempt failed (timeout, connection error, refused address, status).',
      }),
    ),
    succeeded: Type.Boolean({ description: 'The receiver answered 2xx in time.' }),
  },
  { $id: 'WebhookAttempt', title: 'WebhookAttempt' },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String(),
    webhook_id: Type.String(),
    farm_id: Type.String(),
    event_id: Type.String({
      description: 'The event id: `id` in the payload and the Service-Event-Id header.',
    }),
    event_type: Type.String(),
    status: Type.Enum(['pending', 'succeeded', 'failed'], {
      description:
        'pending: being attempted or waiting for a retry; succeeded: a 2xx arrived; failed: every attempt failed, the receiver answered 410, or the webhook was disabled.',
    }),
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(DateTime('When the next scheduled attempt is due; null when none is.')),
    last_attempt_at: Nullable(DateTime()),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    attempts: Type.Array(Type.Ref('WebhookAttempt'), { description: 'Every attempt, oldest first.' }),
    created_at: DateTime(),
    completed_at: Nullable(DateTime('When the delivery succeeded or failed for good.')),
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' },
);

const url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Absolute http(s) URL on a public address (see FARMSTEAD_WEBHOOK_ALLOW_PRIVATE).',
});
const events = Type.Array(Type.String({ minLength: 1 }), { description: EVENTS_DESCRIPTION });

export const CreateWebhookBody = Type.Object(
  {
    url,
    events: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: `${EVENTS_DESCRIPTION} Default ["*"].` }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(url),
    events: Type.Optional(events),
    status: Type.Optional(
      Type.Enum(['enabled', 'disabled'], {
        description: 'enabled turns a disabled webhook back on (for example after a 410).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DeliveryListQuery = {
  status: Type.Optional(
    Type.Enum(['pending', 'succeeded', 'failed'], {
      description: 'Only deliveries in this status.',
    }),
  ),
};

export type Webhook = Static<typeof WebhookSchema>;
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;
export type WebhookDelivery = Omit<Static<typeof WebhookDeliverySchema>, 'attempts'> & {
  attempts: WebhookAttempt[];
};
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;
