/**
 * A farm's escalation chain (`settings.escalation`): an urgent alert nobody acknowledged within
 * `after_minutes` notifies the chain's next step, and so on, until someone acknowledges it or it resolves
 * (modules/notifications/escalation.ts). `false` turns escalation off for the farm.
 */
import { isPlainObject } from '../lib/json.ts';
import {
  isNotificationChannel,
  NOTIFICATION_CHANNELS,
  type NotificationChannel,
} from './notification-channels.ts';

export const ESCALATION_TARGETS = ['owners', 'crew', 'everyone'] as const;
export type EscalationTarget = (typeof ESCALATION_TARGETS)[number];
/** A step reaches people on any notification channel (notification-channels.ts). */
export type EscalationChannel = NotificationChannel;

export interface EscalationStep {
  /** A role's people, everyone, or one person by id (`per_…`). */
  notify: EscalationTarget | string;
  channels: EscalationChannel[];
}

export interface Escalation {
  after_minutes: number;
  steps: EscalationStep[];
}

export const MAX_ESCALATION_STEPS = 10;
export const MAX_AFTER_MINUTES = 24 * 60;

/** With no set-up: after 15 minutes all crew by push, then after 15 more the owners by push and email. */
export const DEFAULT_ESCALATION: Escalation = Object.freeze({
  after_minutes: 15,
  steps: [
    { notify: 'crew', channels: ['push'] },
    { notify: 'owners', channels: ['push', 'email'] },
  ],
}) as Escalation;

export type EscalationResult =
  | { ok: true; value: Escalation | false }
  | { ok: false; param: string; message: string };

const PERSON_ID = /^per_[0-9a-z]{26}$/;

/** Validates `settings.escalation`; errors name the member (`settings.escalation.steps[1].notify`). */
export function validateEscalation(input: unknown): EscalationResult {
  const root = 'settings.escalation';
  const fail = (param: string, message: string): EscalationResult => ({ ok: false, param, message });
  if (input === false) return { ok: true, value: false };
  if (!isPlainObject(input)) {
    return fail(root, `${root} must be an object {after_minutes, steps}, or false to turn escalation off.`);
  }
  for (const key of Object.keys(input)) {
    if (key !== 'after_minutes' && key !== 'steps') {
      return fail(`${root}.${key}`, `${root}.${key} is not a member; use after_minutes and steps.`);
    }
  }
  const after = input.after_minutes ?? DEFAULT_ESCALATION.after_minutes;
  if (typeof after !== 'number' || !Number.isInteger(after) || after < 1 || after > MAX_AFTER_MINUTES) {
    return fail(
      `${root}.after_minutes`,
      `${root}.after_minutes must be a whole number of minutes from 1 to ${MAX_AFTER_MINUTES}.`,
    );
  }
  const steps = input.steps ?? DEFAULT_ESCALATION.steps;
  if (!Array.isArray(steps) || steps.length > MAX_ESCALATION_STEPS) {
    return fail(`${root}.steps`, `${root}.steps must be a list of at most ${MAX_ESCALATION_STEPS} steps.`);
  }
  const out: EscalationStep[] = [];
  for (const [i, step] of steps.entries()) {
    const at = `${root}.steps[${i}]`;
    if (!isPlainObject(step)) return fail(at, `${at} must be an object {notify, channels}.`);
    for (const key of Object.keys(step)) {
      if (key !== 'notify' && key !== 'channels') {
        return fail(`${at}.${key}`, `${at}.${key} is not a member; use notify and channels.`);
      }
    }
    const notify = step.notify;
    if (
      typeof notify !== 'string' ||
      !((ESCALATION_TARGETS as readonly string[]).includes(notify) || PERSON_ID.test(notify))
    ) {
      return fail(
        `${at}.notify`,
        `${at}.notify must be owners, crew, everyone or a person's id (per_…), not ${JSON.stringify(notify)}.`,
      );
    }
    const channels = step.channels ?? ['push'];
    if (
      !Array.isArray(channels) ||
      channels.length === 0 ||
      !channels.every(isNotificationChannel) ||
      new Set(channels).size !== channels.length
    ) {
      return fail(
        `${at}.channels`,
        `${at}.channels must list channels of ${NOTIFICATION_CHANNELS.join(', ')}, each once.`,
      );
    }
    out.push({ notify, channels: channels as EscalationChannel[] });
  }
  return { ok: true, value: { after_minutes: after, steps: out } };
}

/** A farm's chain from its settings: the default when unset, null when turned off. */
export function escalationOf(settings: Record<string, unknown>): Escalation | null {
  const raw = settings.escalation;
  if (raw === undefined || raw === null) return DEFAULT_ESCALATION;
  const result = validateEscalation(raw);
  if (!result.ok) return DEFAULT_ESCALATION;
  return result.value === false ? null : result.value;
}
