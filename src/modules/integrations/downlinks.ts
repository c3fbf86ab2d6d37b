/**
 * Commands out as downlinks. A command queued to a device an integration carries gets a downlink row (here,
 * by the `integrations.downlinks` job, or at once when an uplink's report hands the command out). Downlinks
 * are a kind of the one delivery queue (db/delivery-queue.ts: leases, attempts counted by the claim, the
 * backoff, settling only while the lease holds; the loop: workers/delivery-loop.ts); the kind sends a due
 * row to the network server's API and says what the answer means:
 *  - accepted (2xx): the command is `delivered`;
 *  - refused (4xx): `failed`, with the server's words in `result`;
 *  - unreachable (network error, timeout, 408, 429, 5xx): tried again on the webhook retry schedule
 *    (FARMSTEAD_WEBHOOK_RETRY_SCHEDULE_MS, its last delay repeating) while the command has not expired; when
 *    the next try would come after the expiry (the queue's `expired`), `failed` with the last error.
 * The server's later events settle it: confirmed downlinks go `done` on the device's ack (ChirpStack `ack`
 * acknowledged, TTS `down/ack`) and `failed` on a negative ack or `down/failed`; unconfirmed ones go `done`
 * when the gateway sent them (ChirpStack `txack`, TTS `down/sent`), since no ack will ever come.
 */
import type { Config } from '../../config.ts';
import {
  claimDue,
  type DeliveryKind,
  type DeliveryState,
  deliverDueOnce,
  type Leased,
  nextStep,
  type QueueTable,
  release,
  type Step,
  settle as settleLeased,
} from '../../db/delivery-queue.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { parseJson } from '../../lib/json.ts';
import { metrics } from '../../lib/metrics.ts';
import { type CommandRow, toCommand } from '../commands/repository.ts';
import type { Command } from '../commands/schemas.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { type EncodedDownlink, EncodeError, encodeCommand } from './downlink.ts';
import { effectiveSettings } from './effective.ts';
import type { Mapping } from './mapping.ts';
import { type ApiAnswer, describeFailure, isRefusedAddress, postToNetworkServer } from './network-client.ts';
import type { NetworkEvent } from './network-events.ts';
import type { DownlinkRequest, NetworkServer } from './network-server.ts';
import { networkServer } from './network-servers.ts';
import type { Encoder } from './presets.ts';
import {
  commandsWithoutDownlink,
  type DownlinkRow,
  downlinkContext,
  downlinkForEvent,
  finishCommand,
  insertDownlinks,
  markCommandDelivered,
  updateDownlink,
} from './repository.ts';
import type { IntegrationDefault } from './schemas.ts';

export interface DownlinkSettings {
  allowPrivate: boolean;
  timeoutMs: number;
  retryScheduleMs: readonly number[];
}

export function downlinkSettings(config: Readonly<Config>): DownlinkSettings {
  return {
    allowPrivate: config.webhookAllowPrivate,
    timeoutMs: config.webhookTimeoutMs,
    retryScheduleMs: config.webhookRetryScheduleMs,
  };
}

/** Sends in flight at once per process. */
const BATCH = 50;

/**
 * Downlinks as a kind of the delivery queue: `sent` once the network server accepted one (its events
 * settle it later), `settled` when it failed, expired or had nothing left to send.
 */
export const DOWNLINK_QUEUE: QueueTable<'integration_downlinks'> = {
  name: 'downlinks',
  table: 'integration_downlinks',
  key: 'command_id',
  attempts: 'attempts',
  statuses: {
    pending: 'pending',
    succeeded: 'sent',
    failed: 'settled',
    expired: 'settled',
    skipped: 'settled',
  },
  open: ['pending', 'sent'],
};

/** New downlink rows for commands (handed out by a report, or found waiting). */
export function downlinkRowsFor(
  commands: readonly Pick<Command, 'id' | 'device_id' | 'farm_id'>[],
  integrationId: string,
  now: number,
): DownlinkRow[] {
  return commands.map((c) => ({
    command_id: c.id,
    integration_id: integrationId,
    device_id: c.device_id,
    farm_id: c.farm_id,
    status: 'pending',
    confirmed: 1,
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    remote_id: null,
    last_error: null,
    created_at: now,
    sent_at: null,
  }));
}

/** Ends the command (if still open) and announces it, in one transaction with the downlink's settling. */
async function settle(
  trx: Trx,
  commandId: string,
  status: 'done' | 'failed',
  result: Record<string, unknown>,
  now: number,
): Promise<CommandRow | undefined> {
  await updateDownlink(trx, commandId, { status: 'settled', locked_until: null, next_attempt_at: null });
  const row = await finishCommand(trx, commandId, { status, result: JSON.stringify(result), now });
  if (!row) return undefined;
  metrics.commands.inc({ status });
  await emitEvent(
    trx,
    row.farm_id,
    status === 'done' ? 'command.done' : 'command.failed',
    toCommand(row),
    now,
  );
  return row;
}

/**
 * Fails a claimed downlink's command for good (`step`: failed or expired), in one transaction with the
 * downlink's settling; nothing changes when the claim's lease was lost meanwhile.
 */
function failNow(db: Db, item: Leased, step: Step, result: Record<string, unknown>, now: number) {
  return inTransaction(db, async (trx) => {
    if (!(await settleLeased(trx, DOWNLINK_QUEUE, item, step))) return null;
    await settle(trx, item.key, 'failed', result, now);
    return step.state;
  });
}

const FAILED: Step = { state: 'failed', next_attempt_at: null };

type Context = NonNullable<Awaited<ReturnType<typeof downlinkContext>>>;

/** The request that carries this command through the integration's server, or why there is none (it then fails). */
function buildRequest(
  ctx: Context,
  server: NetworkServer,
  commandId: string,
): { ok: true; request: DownlinkRequest; confirmed: boolean } | { ok: false; error: string } {
  if (!ctx.link_integration_id || !ctx.dev_eui) {
    return { ok: false, error: 'The device is no longer carried by a LoRaWAN integration.' };
  }
  if (!ctx.api_url) {
    return {
      ok: false,
      error: 'The integration has no api_url: set it (and api_key) to send commands as downlinks.',
    };
  }
  const own = {
    preset: ctx.preset,
    mapping: null as Mapping | null,
    encoder: parseJson<Encoder | null>(ctx.encoder, null),
  };
  const { encoder } = effectiveSettings(own, parseJson<IntegrationDefault[]>(ctx.defaults, []), {
    name: ctx.device_name,
    profile: parseJson<{ profile?: string | null } | null>(ctx.last_uplink, null)?.profile ?? null,
  });
  let encoded: EncodedDownlink;
  try {
    encoded = encodeCommand(encoder, ctx.command, parseJson<Record<string, unknown>>(ctx.params, {}));
  } catch (err) {
    if (err instanceof EncodeError) return { ok: false, error: err.message };
    throw err;
  }
  const target = {
    apiUrl: ctx.api_url,
    devEui: ctx.dev_eui,
    remoteId: ctx.remote_id,
    applicationId: ctx.application_id,
    webhookId: ctx.webhook_id,
  };
  const built = server.downlinkRequest(target, encoded, commandId);
  return built.ok ? { ...built, confirmed: encoded.confirmed } : built;
}

function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The queue's retries for a downlink: the webhook schedule, its last delay repeating, until the expiry. */
function retryPolicy(schedule: readonly number[], expiresAt: number) {
  return { scheduleMs: schedule.length > 0 ? schedule : [60_000], repeatLast: true, expiresAt };
}

/** Sends one claimed downlink and settles it by the answer; returns its state (null: the lease was lost). */
async function sendOne(
  db: Db,
  item: Leased,
  settings: DownlinkSettings,
  now: number,
): Promise<DeliveryState | null> {
  const commandId = item.key;
  const ctx = await downlinkContext(db, commandId);
  if (
    !ctx ||
    (ctx.command_status !== 'queued' && ctx.command_status !== 'delivered') ||
    ctx.expires_at <= now
  ) {
    // Expired, answered or deleted meanwhile: nothing to send.
    const settled = await settleLeased(db, DOWNLINK_QUEUE, item, { state: 'skipped', next_attempt_at: null });
    return settled ? 'skipped' : null;
  }
  const server = networkServer(ctx.type);
  const built = buildRequest(ctx, server, commandId);
  if (!built.ok) return failNow(db, item, FAILED, { error: built.error }, now);
  const attempts = item.attempt;
  let answer: ApiAnswer | null = null;
  let failure: string;
  try {
    answer = await postToNetworkServer(built.request.url, built.request.body, ctx.api_key, settings);
    failure = `the network server answered HTTP ${answer.status}`;
  } catch (err) {
    failure = describeFailure(err, settings.timeoutMs);
    // An address the SSRF guard refuses will not become allowed by waiting.
    if (isRefusedAddress(err)) return failNow(db, item, FAILED, { error: failure }, now);
  }
  if (answer && answer.status >= 200 && answer.status < 300) {
    const remoteId = server.acceptedId(answer.body);
    return inTransaction(db, async (trx) => {
      const settled = await settleLeased(
        trx,
        DOWNLINK_QUEUE,
        item,
        { state: 'succeeded', next_attempt_at: null },
        {
          confirmed: built.confirmed ? 1 : 0,
          sent_at: now,
          last_error: null,
          remote_id: remoteId,
        },
      );
      if (!settled) return null;
      if (await markCommandDelivered(trx, commandId, now)) metrics.commands.inc({ status: 'delivered' });
      return 'succeeded';
    });
  }
  if (answer && !retryable(answer.status)) {
    return failNow(
      db,
      item,
      FAILED,
      {
        error: 'The network server refused the downlink.',
        status_code: answer.status,
        response: answer.body as never,
      },
      now,
    );
  }
  const step = nextStep('retry', attempts, retryPolicy(settings.retryScheduleMs, ctx.expires_at), now);
  if (step.state !== 'retrying') {
    return failNow(
      db,
      item,
      step,
      {
        error: 'The network server could not be reached before the command expired.',
        last_error: failure,
        attempts,
        ...(answer ? { status_code: answer.status, response: answer.body as never } : {}),
      },
      now,
    );
  }
  const settled = await settleLeased(db, DOWNLINK_QUEUE, item, step, { last_error: failure });
  return settled ? 'retrying' : null;
}

/** Gives every open command of a carried device a downlink row (they are sent by sendDueDownlinks). */
export async function queueDownlinks(db: Db, now: number): Promise<number> {
  const waiting = await commandsWithoutDownlink(db, now, QUEUE_BATCH);
  const rows = waiting.map(
    (w) =>
      downlinkRowsFor(
        [{ id: w.command_id, device_id: w.device_id, farm_id: w.farm_id }],
        w.integration_id,
        now,
      )[0] as DownlinkRow,
  );
  await insertDownlinks(db, rows);
  return rows.length;
}

/** Commands waiting for a downlink row, per turn. */
const QUEUE_BATCH = 500;

/**
 * Downlinks as a kind of the delivery queue: each turn first gives waiting commands their rows; a send is
 * one request to the network server's API.
 */
export function downlinkDeliveries(settings: DownlinkSettings): DeliveryKind {
  // The lease outlasts a send (its deadline) so no other process sends the same row meanwhile.
  const leaseMs = settings.timeoutMs * 2 + 1_000;
  return {
    queue: DOWNLINK_QUEUE,
    pollMs: 1_000,
    concurrency: BATCH,
    prepare: async (db, now) => (await queueDownlinks(db, now)) === QUEUE_BATCH,
    claim: (db, { now, limit }) => claimDue(db, DOWNLINK_QUEUE, { now, limit, leaseMs }),
    release: (db, items) => release(db, DOWNLINK_QUEUE, items),
    send: (db, item, now) => sendOne(db, item, settings, now),
  };
}

/** One pass at `now`: new commands get rows, and due rows are sent (at most 50 at once). */
export async function sendDueDownlinks(
  db: Db,
  settings: DownlinkSettings,
  now: number = Date.now(),
): Promise<Record<'sent' | 'failed' | 'retry' | 'skipped', number>> {
  const kind = downlinkDeliveries(settings);
  await kind.prepare?.(db, now);
  const { states } = await deliverDueOnce(db, kind, now);
  return {
    sent: states.succeeded ?? 0,
    failed: (states.failed ?? 0) + (states.expired ?? 0),
    retry: states.retrying ?? 0,
    skipped: states.skipped ?? 0,
  };
}

/**
 * A network server's word on a downlink (ack, nack, sent, failed): settles its command as the message says.
 * The downlink is found by the command ids or the queue item id the message names, else (a server that
 * names neither) as the device's oldest one the server accepted. Answers the device of the downlink found.
 */
export async function applyDownlinkEvent(
  trx: Trx,
  integrationId: string,
  deviceId: string | null,
  event: Extract<NetworkEvent, { kind: 'downlink' }>,
  now: number,
): Promise<string | null> {
  const row = await downlinkForEvent(trx, integrationId, {
    deviceId,
    queueItemId: event.queueItemId,
    commandIds: event.commandIds,
    namesOther: event.namesOther ?? false,
  });
  if (!row) return null;
  if (row.status !== 'settled') await settleFromEvent(trx, row, event, now);
  return row.device_id;
}

async function settleFromEvent(
  trx: Trx,
  row: DownlinkRow,
  event: Extract<NetworkEvent, { kind: 'downlink' }>,
  now: number,
): Promise<void> {
  const at = new Date(event.at).toISOString();
  switch (event.result) {
    case 'queued':
      return;
    case 'sent':
      // Unconfirmed: the gateway's transmission is all that will ever be known.
      if (row.confirmed === 0) await settle(trx, row.command_id, 'done', { network_server: 'sent', at }, now);
      return;
    case 'ack':
      await settle(trx, row.command_id, 'done', { network_server: 'acknowledged', at }, now);
      return;
    case 'nack':
      await settle(
        trx,
        row.command_id,
        'failed',
        { error: 'The device did not acknowledge the downlink.', at, ...(event.detail ?? {}) },
        now,
      );
      return;
    case 'failed':
      await settle(
        trx,
        row.command_id,
        'failed',
        { error: 'The network server could not send the downlink.', at, detail: event.detail as never },
        now,
      );
      return;
  }
}
