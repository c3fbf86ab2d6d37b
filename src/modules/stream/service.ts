/**
 * What a stream needs beyond the hub: where the client resumes, which events its caller may see, and
 * whether it still may while the stream runs.
 */

import type { ApiCaller } from '../../calls/callers.ts';
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { allows, type Policy, permission } from '../../domain/permissions.ts';
import {
  carriesAlertFarmEvent,
  isStreamOnlyEvent,
  isWebhookEventName,
  mayReadAlertFarmEvents,
  mayReadEvent,
  STREAM_ONLY_EVENTS,
} from '../../domain/webhook-events.ts';
import { requireFarm } from '../farms/access.ts';
import { keyIsActive, sessionIsActive } from './repository.ts';
import { EVENT_ID_PATTERN } from './schemas.ts';

function checkedEventId(value: string, param: string): string {
  if (!EVENT_ID_PATTERN.test(value)) {
    throw new AppError(
      'invalid_request',
      `${param} must be an event id from this stream (msg_ and 26 letters or digits), got ${JSON.stringify(value.slice(0, 80))}.`,
      { param },
    );
  }
  return value;
}

/**
 * Where the client resumes: the Last-Event-ID header (what EventSource sends on reconnect, so it wins over
 * the query parameter of the URL it first opened), else `last_event_id`; null for a stream from now.
 */
export function resumeAfter(header: string | string[] | undefined, query: string | undefined): string | null {
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader !== undefined && fromHeader.trim() !== '') {
    return checkedEventId(fromHeader.trim(), 'Last-Event-ID');
  }
  if (query !== undefined) return checkedEventId(query, 'last_event_id');
  return null;
}

/**
 * Whether a caller with this policy may see an event of this type (it may read the event's resource) and
 * data (an `event.created` of the alert engine's needs alerts:read too).
 */
export function mayReceive(policy: Policy, type: string, data: string): boolean {
  if (isStreamOnlyEvent(type)) return allows(policy, permission(STREAM_ONLY_EVENTS[type], 'read'));
  if (carriesAlertFarmEvent(type, data) && !mayReadAlertFarmEvents(policy)) return false;
  return isWebhookEventName(type) && mayReadEvent(policy, type);
}

/**
 * The stream-only frames a client asks for with `include` (comma-separated); an unknown name is 400. The
 * caller's permissions filter them later, like every frame.
 */
export function includedFrames(include: string | undefined): Set<string> {
  const names = new Set<string>();
  if (include === undefined) return names;
  for (const raw of include.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (!isStreamOnlyEvent(name)) {
      throw new AppError(
        'invalid_request',
        `include "${name.slice(0, 80)}" is not a frame the stream can add; use ${Object.keys(STREAM_ONLY_EVENTS).join(', ')}.`,
        { param: 'include' },
      );
    }
    names.add(name);
  }
  return names;
}

/**
 * While a stream runs: is its key still valid (or its console session still as it was), and the farm still
 * the caller's?
 */
export async function stillAllowed(db: Db, caller: ApiCaller, farmId: string): Promise<boolean> {
  const active = caller.session
    ? await sessionIsActive(db, caller.session, caller.mode)
    : await keyIsActive(db, caller.keyId);
  if (!active) return false;
  try {
    await requireFarm(db, caller, farmId);
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') return false;
    throw err;
  }
}
