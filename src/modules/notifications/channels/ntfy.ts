/**
 * ntfy (https://ntfy.sh, or the server a farm runs beside Home Assistant): a person saves their topic's
 * full URL (`https://ntfy.example.com/farm-alerts`) and, for a protected topic, an access token; every
 * farm's notices they take on `ntfy` are published there with ntfy's publish API: a POST to the topic URL
 * with the message as the body and `X-Title`, `X-Priority` (an urgent alert 5, watch 4, else 3), `X-Tags`,
 * `X-Click` (the alert's page) and `X-Actions` (JSON: an open alert's notice carries an `http` action,
 * Acknowledge, that POSTs its single-use token to our acknowledge endpoint, and a `view` action, Open).
 * The token is sent as `Authorization: Bearer`, stored to be sent, never logged, and shown as its last four
 * characters only (`…` alone for one shorter than 12: a short token would show whole). The URL is checked when saved (checkOutboundUrl) and sent through the one outbound
 * client (sendOutbound), whose guard checks the address each connection really goes to.
 * What its answers mean: 2xx accepted; 401/403 (a wrong token), 404, 413 and other 4xx but 408/429 are
 * final (retrying will not help); 408, 429, 5xx and no answer are retried, no sooner than a `Retry-After`
 * header asks (ntfy.sh sends one with its 429; delivery.ts caps the wait); a refused address is final.
 */
import { type Static, Type } from 'typebox';
import { checkOutboundUrl } from '../../../calls/outbound-url.ts';
import type { Db } from '../../../db/schema.ts';
import type { AlertSeverity } from '../../../db/tables/alerts.ts';
import { invalid } from '../../../domain/errors.ts';
import type { RoleName } from '../../../domain/permissions.ts';
import { parseJson } from '../../../lib/json.ts';
import { OutboundError, type OutboundResponse, retryAfterMs, sendOutbound } from '../../../lib/outbound.ts';
import { say } from '../content.ts';
import { type NotificationRow, peopleWithTarget, targetOf } from '../repository.ts';
import {
  ackEndpoint,
  type ChannelAdapter,
  type DeliveryConfig,
  isUrgentAlert,
  type Notice,
  type Outcome,
} from './types.ts';

/** ntfy's topic names (its server refuses others). */
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
/** The most of an answer read (ntfy answers with a short JSON object). */
const MAX_ANSWER_BYTES = 65_536;

const NtfyInput = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Your ntfy topic’s full URL, e.g. https://ntfy.example.com/farm-alerts (a public address unless the server allows private ones).',
    }),
    token: Type.Optional(
      Type.Union([
        Type.String({
          minLength: 1,
          maxLength: 200,
          pattern: '^[!-~]+$',
          description:
            'An ntfy access token (tk_…) for a protected topic, sent as Authorization: Bearer. Left out: the saved one is kept while the server stays the same; null removes it. Never returned.',
        }),
        Type.Null(),
      ]),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Your ntfy topic, for every farm (null removes it); what it carries is `channels.ntfy` per farm.',
  },
);

const NtfyView = Type.Object(
  {
    url: Type.String({ description: 'Your ntfy topic’s URL.' }),
    token: Type.Union([
      Type.String({
        description:
          'The saved access token as its last four characters (`…a1B2`), or `…` alone for a token shorter than 12 characters; null: none.',
      }),
      Type.Null(),
    ]),
  },
  { description: 'Your ntfy topic, for every farm; null: none saved.' },
);

/** What is stored for a person (notification_targets.target, JSON). */
export interface NtfyTarget {
  url: string;
  token: string | null;
}

export interface NtfyAction {
  action: 'http' | 'view';
  label: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  clear?: boolean;
}

/** A notice as ntfy publishes it. */
export interface NtfyMessage {
  title: string;
  message: string;
  priority: 1 | 2 | 3 | 4 | 5;
  tags: string[];
  click: string;
  actions: NtfyAction[];
}

const TAGS: Record<string, string> = {
  urgent: 'rotating_light',
  watch: 'warning',
  info: 'information_source',
  resolved: 'white_check_mark',
  test: 'bell',
  brief: 'sunrise',
};

/** The notice as ntfy carries it. Pure. */
export function renderNtfy({ row, ackToken, publicUrl, reader }: Notice): NtfyMessage {
  const priority = isUrgentAlert(row) ? 5 : row.kind === 'alert' && row.severity === 'watch' ? 4 : 3;
  const tag = row.kind === 'alert' ? TAGS[row.severity ?? 'info'] : TAGS[row.kind];
  const actions: NtfyAction[] = [];
  if (ackToken) {
    actions.push({
      action: 'http',
      label: say(reader, 'action_acknowledge'),
      url: ackEndpoint(publicUrl),
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: ackToken }),
      clear: true,
    });
  }
  actions.push({ action: 'view', label: say(reader, 'action_open'), url: row.url });
  return { title: row.title, message: row.body, priority, tags: tag ? [tag] : [], click: row.url, actions };
}

/** A token shown long enough to hide 8 characters or more (ntfy's are 32). */
const MASK_MIN_LENGTH = 12;

/**
 * A saved token as shown: its last four characters after `…`, only when it is at least 12 long (a shorter
 * one would be shown whole or nearly), else `…` alone.
 */
export function maskToken(token: string): string {
  return token.length >= MASK_MIN_LENGTH ? `…${token.slice(-4)}` : '…';
}

/** A header value ntfy reads back as UTF-8: RFC 2047 when it is not plain ASCII (ntfy decodes it). */
function headerText(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value).toString('base64')}?=`;
}

/** Checks a topic URL for saving (member `ntfy.url`): http(s), a topic name last, a public address. */
export async function checkNtfyUrl(raw: string, options: { allowPrivate: boolean }): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(
      'ntfy.url',
      `ntfy.url "${raw.slice(0, 100)}" is not an absolute URL; use your topic's, e.g. https://ntfy.example.com/farm-alerts.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid('ntfy.url', `ntfy.url must use https:// (or http://), not ${url.protocol}//.`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw invalid(
      'ntfy.url',
      'ntfy.url must be the topic’s URL alone: no user, query or fragment (a token goes in ntfy.token).',
    );
  }
  const topic = url.pathname.split('/').at(-1) ?? '';
  if (!TOPIC.test(topic)) {
    throw invalid(
      'ntfy.url',
      'ntfy.url must end with the topic’s name (letters, digits, - and _, at most 64), e.g. https://ntfy.sh/farm-alerts-7f3k.',
    );
  }
  return checkOutboundUrl(url.toString(), { ...options, param: 'ntfy.url' });
}

/** What ntfy's answer means for this notice (a retried one carries the wait its Retry-After asks for). */
function outcomeOf(response: OutboundResponse, now: number): Outcome {
  const answer = { status: response.status, body: response.body.toString('utf8') };
  if (answer.status >= 200 && answer.status < 300) {
    const id = parseJson<{ id?: unknown }>(answer.body, {}).id;
    return {
      accepted: true,
      final: true,
      answer: `HTTP ${answer.status}${typeof id === 'string' ? ` (message ${id})` : ''}`,
    };
  }
  const said = parseJson<{ error?: unknown }>(answer.body, {}).error;
  const detail = typeof said === 'string' ? `: ${said.slice(0, 200)}` : '';
  const retry = answer.status === 408 || answer.status === 429 || answer.status >= 500;
  const hint =
    answer.status === 401 || answer.status === 403
      ? ' (check the access token saved with your topic)'
      : answer.status >= 300 && answer.status < 400
        ? ' (redirects are not followed: save the topic’s final URL)'
        : '';
  const wait = retry ? retryAfterMs(response.headers['retry-after'], now) : undefined;
  return {
    accepted: false,
    final: !retry,
    answer: `HTTP ${answer.status}${detail}${hint}`,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
}

export const ntfyChannel = {
  defaults: (role: RoleName): AlertSeverity[] => (role === 'owner' ? ['urgent', 'watch'] : ['urgent']),
  unavailable: () => null,
  reachable: (db: Db, personIds: readonly string[]) => peopleWithTarget(db, personIds, 'ntfy'),
  unreachable: 'You have no ntfy topic saved: add it on your Account page first.',

  target: {
    input: NtfyInput,
    view: NtfyView,
    async check(raw: unknown, previous: NtfyTarget | null, options: { allowPrivate: boolean }) {
      const input = raw as Static<typeof NtfyInput>;
      const url = await checkNtfyUrl(input.url, options);
      // A token is never sent to another server than the one it was saved for.
      const kept =
        previous?.token && new URL(previous.url).origin === new URL(url).origin ? previous.token : null;
      return { url, token: input.token === undefined ? kept : input.token };
    },
    show: (stored: NtfyTarget) => ({ url: stored.url, token: stored.token ? maskToken(stored.token) : null }),
  },

  render: renderNtfy,

  async send(
    db: Db,
    row: NotificationRow,
    message: NtfyMessage,
    config: DeliveryConfig,
    now: number,
  ): Promise<Outcome> {
    const stored = await targetOf(db, row.person_id, 'ntfy');
    const target = stored ? parseJson<NtfyTarget | null>(stored, null) : null;
    if (!target) {
      return { accepted: false, final: true, skipped: true, answer: 'not sent: no ntfy topic saved' };
    }
    const headers: Record<string, string> = {
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Title': headerText(message.title),
      'X-Priority': String(message.priority),
      'X-Click': message.click,
      'X-Actions': JSON.stringify(message.actions),
    };
    if (message.tags.length > 0) headers['X-Tags'] = message.tags.join(',');
    if (target.token) headers.Authorization = `Bearer ${target.token}`;
    try {
      const response = await sendOutbound({
        url: target.url,
        method: 'POST',
        headers,
        body: message.message,
        allowPrivate: config.webhookAllowPrivate,
        timeoutMs: config.webhookTimeoutMs,
        maxResponseBytes: MAX_ANSWER_BYTES,
      });
      return outcomeOf(response, now);
    } catch (err) {
      if (!(err instanceof OutboundError)) return { accepted: false, final: false, answer: String(err) };
      // A refused address stays refused; an answer too large to read may have been a publish: not again.
      const final = err.kind === 'refused_address' || err.kind === 'bad_url' || err.kind === 'too_large';
      return { accepted: false, final, answer: err.message };
    }
  },
} satisfies ChannelAdapter<NtfyMessage, NtfyTarget>;
