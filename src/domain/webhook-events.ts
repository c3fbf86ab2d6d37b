/** Event names a webhook can subscribe to, and what emits each. `*` in a webhook's events means all. */

import {
  allows,
  FAMILY_NAMES,
  PERMISSION_FAMILIES,
  type Policy,
  permission,
  type Resource,
} from './permissions.ts';

export const WEBHOOK_EVENTS = [
  'alert.created',
  'alert.resolved',
  'command.queued',
  'command.done',
  'command.failed',
  'event.created',
  'device.created',
  'animal.created',
  'treatment.created',
  'treatment.deleted',
  'withdrawal.overridden',
  'movement.created',
  'weigh_session.imported',
  'animal.born',
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/**
 * The event `POST /v1/webhooks/{id}/test` sends to that one webhook, whatever its `events`: not a farm
 * change, so no webhook subscribes to it and `"*"` does not include it.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const WEBHOOK_EVENT_DESCRIPTIONS: Readonly<Record<WebhookEventName, string>> = Object.freeze({
  'alert.created':
    'An alert opened: a device reading reached a rule’s watch or urgent line (or a rate rule’s change, ' +
    'e.g. water.leak), a device stopped reporting (device.quiet), a group’s intake per head dropped ' +
    '(group.intake_drop), or a device reported predator.detected, safety_edge.stop or door.jammed. data is the Alert.',
  'alert.resolved':
    'An alert resolved: POST /v1/alerts/{id}/resolve (or the update_alert tool), a later reading ' +
    'crossed back past the rule’s clear value, a quiet device reported again, a group’s intake came back, ' +
    'or its rule or device went away. data is the Alert.',
  'command.queued':
    'A command was queued for a device: POST /v1/devices/{id}/commands or the house_command tool. data is the Command.',
  'command.done':
    'A device reported a command done (POST /v1/device/commands/{id} with status done), or a sample-farm ' +
    'command completed at once as a simulation. data is the Command.',
  'command.failed':
    'A device reported a command failed (POST /v1/device/commands/{id} with status failed). data is the Command.',
  'event.created':
    'A farm event was logged: POST /v1/farms/{farm}/events, the log_event tool, or an event in a device ' +
    'report. data is the Event.',
  'device.created':
    'A device was added: POST /v1/farms/{farm}/devices. data is the Device (without its key).',
  'animal.created':
    'An animal was added: POST /v1/farms/{farm}/animals or the add_animal tool. data is the Animal.',
  'treatment.created':
    'A medicine was given to an animal: POST /v1/farms/{farm}/treatments (one per animal), or a `treatment` ' +
    'farm event whose data names a medicine_id and a dose. data is the Treatment, with its withdrawal_until.',
  'treatment.deleted':
    'A treatment recorded by mistake was taken back: DELETE /v1/treatments/{id} (its stock returned, the ' +
    "animal's withdrawal made again from its other treatments, its log entry removed). data is the Treatment as it was.",
  'withdrawal.overridden':
    'An animal inside its meat withdrawal left with an override_reason: a sale or slaughter event, a ' +
    'status change to sold or slaughtered, or a move off the holding. data is {action, override_reason, event_id, animals: [{animal_id, ' +
    'meat_until, medicine_id, medicine, batch_id, batch}]}.',
  'movement.created':
    'Animals moved on or off the holding: POST /v1/farms/{farm}/movements. data is the Movement.',
  'weigh_session.imported':
    'A weigh session file was imported: POST /v1/farms/{farm}/weigh-sessions/import (its weights are `weight` ' +
    'events of the log, not each sent as event.created). data is the WeighSession with its summary.',
  'animal.born':
    'A birth event with offspring created an animal (one event per offspring, after its animal.created). ' +
    'data is {animal, dam_id, event_id}.',
});

/**
 * The resource each event's data belongs to: a caller that may not read it does not get the event, on the
 * live stream or by a webhook it creates (a key restricted to records sees no alerts or commands there).
 */
export const WEBHOOK_EVENT_RESOURCES: Readonly<Record<WebhookEventName, Resource>> = Object.freeze({
  'alert.created': 'alerts',
  'alert.resolved': 'alerts',
  'command.queued': 'commands',
  'command.done': 'commands',
  'command.failed': 'commands',
  'event.created': 'events',
  'device.created': 'devices',
  'animal.created': 'animals',
  'treatment.created': 'animals',
  'treatment.deleted': 'animals',
  'withdrawal.overridden': 'animals',
  'movement.created': 'animals',
  'weigh_session.imported': 'animals',
  'animal.born': 'animals',
});

export function isWebhookEventName(value: unknown): value is WebhookEventName {
  return typeof value === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** Whether a caller with this policy may receive events of this type: it may read the event's resource. */
export function mayReadEvent(policy: Policy, type: WebhookEventName): boolean {
  return allows(policy, permission(WEBHOOK_EVENT_RESOURCES[type], 'read'));
}

/** The events a caller with this policy may receive, in the registry's order. */
export function readableEvents(policy: Policy): WebhookEventName[] {
  return WEBHOOK_EVENTS.filter((type) => mayReadEvent(policy, type));
}

/**
 * Whether the policy may read every resource there is, so that `"*"` (every event, those added later too)
 * can never send it something it may not read: an unrestricted key, the owner role.
 */
export function readsEverything(policy: Policy): boolean {
  return FAMILY_NAMES.every((family) =>
    PERMISSION_FAMILIES[family].every((resource) => allows(policy, permission(resource, 'read'))),
  );
}

// Frames only the live stream sends (src/domain/stream-frames.ts, apart so the console's stream code does not
// load this module's lists and the permission rules with it).
export { isStreamOnlyEvent, STREAM_ONLY_EVENTS, type StreamOnlyEventName } from './stream-frames.ts';

/**
 * Farm events the alert engine writes into the event log (alert-engine and alert-passes take their names
 * from here). They carry an alert's details (rule, reason, the reading's values), so they are alert data,
 * not records: reading them needs `alerts:read`, on every path that reads farm events (the event list and
 * GET /v1/events/{id}, the events export, an animal's history, MCP tools) and as `event.created` on the
 * stream and webhooks (docs/permissions.md, "Alert events in the event log").
 */
export const ALERT_FARM_EVENT_TYPES = ['alert.escalated'] as const;

export type AlertFarmEventType = (typeof ALERT_FARM_EVENT_TYPES)[number];

export function isAlertFarmEvent(type: string): boolean {
  return (ALERT_FARM_EVENT_TYPES as readonly string[]).includes(type);
}

/** Whether the policy may read the alert engine's farm events; no policy: an internal caller, everything. */
export function mayReadAlertFarmEvents(policy: Policy | null | undefined): boolean {
  return !policy || allows(policy, permission('alerts', 'read'));
}

/** Whether a caller with this policy may read a farm event of this type (the rule, in one place). */
export function mayReadFarmEvent(policy: Policy | null | undefined, farmEventType: string): boolean {
  return !isAlertFarmEvent(farmEventType) || mayReadAlertFarmEvents(policy);
}

/**
 * Whether an outbox event (type and stored data text) is an `event.created` carrying one of the alert
 * engine's farm events. The data is parsed only when it names one of those types.
 */
export function carriesAlertFarmEvent(type: string, data: string): boolean {
  if (type !== 'event.created' || !ALERT_FARM_EVENT_TYPES.some((t) => data.includes(t))) return false;
  try {
    const event = JSON.parse(data) as { type?: unknown };
    return typeof event.type === 'string' && isAlertFarmEvent(event.type);
  } catch {
    return false;
  }
}

/**
 * Whether a webhook with these stored events may be sent alert data: it sends every event (`"*"`, stored
 * only for a creator that reads everything) or an alert event (its creator could read alerts). Webhooks
 * keep no copy of their creator's key, so their events stand for what it could read.
 */
export function webhookReadsAlerts(events: readonly string[]): boolean {
  return events.some((e) => e === '*' || (isWebhookEventName(e) && WEBHOOK_EVENT_RESOURCES[e] === 'alerts'));
}
