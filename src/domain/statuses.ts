/**
 * The statuses of device commands, alerts and animals, written once: the TypeBox schemas, the queries, the
 * SQL the alerts' unique index is built on, MCP and the console all take them from here.
 */

/**
 * A device command's life: queued → delivered (handed to the device; again if unanswered) → done or
 * failed (the device's answer, or failed as expired).
 */
export const COMMAND_STATUSES = ['queued', 'delivered', 'done', 'failed'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

/** Still waiting for the device's answer: these are handed out, redelivered and expired. */
export const OPEN_COMMAND_STATUSES = ['queued', 'delivered'] as const satisfies readonly CommandStatus[];

/** How a device answers a command; either ends it. */
export const COMMAND_ANSWER_STATUSES = ['done', 'failed'] as const satisfies readonly CommandStatus[];
export type CommandAnswerStatus = (typeof COMMAND_ANSWER_STATUSES)[number];

/** An alert's life: open → acknowledged (by a person) → resolved (by a person, or by the engine). */
export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/**
 * An active alert: at most one per farm, rule and subject (the unique index of migration 0004, built on
 * ACTIVE_ALERT_PREDICATE in db/tables/alerts.ts, which is derived from this list).
 */
export const ACTIVE_ALERT_STATUSES = ['open', 'acknowledged'] as const satisfies readonly AlertStatus[];

/** What an alert list may ask for: `active` (the default: open and acknowledged), one status, or `all`. */
export const ALERT_STATUS_FILTERS = ['active', ...ALERT_STATUSES, 'all'] as const;
export type AlertStatusFilter = (typeof ALERT_STATUS_FILTERS)[number];

/**
 * An animal's known statuses (others are kept as given). Only an `active` animal grazes: one sold or dead
 * but still marked in a paddock is not among its occupants (modules/stays).
 */
export const ANIMAL_STATUSES = ['active', 'sold', 'slaughtered', 'dead', 'culled', 'missing'] as const;
export type AnimalStatus = (typeof ANIMAL_STATUSES)[number];
