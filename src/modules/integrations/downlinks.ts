/**
 * Commands out as downlinks. A command queued to a device an integration carries gets a downlink row (here,
 * by the `integrations.downlinks` job, or at once when an uplink's report hands the command out); the job
 * sends due rows to the network server's API and records what happened:
 *  - accepted (2xx): the command is `delivered`;
 *  - refused (4xx): `failed`, with the server's words in `result`;
 *  - unreachable (network error, timeout, 408, 429, 5xx): tried again on the webhook retry schedule
 *    (FARMSTEAD_WEBHOOK_RETRY_SCHEDULE_MS, its last delay repeating) while the command has not expired; when
 *    the next try would come after the expiry, `failed` with the last error.
 * The server's later events settle it: confirmed downlinks go `done` on the device's ack (ChirpStack `ack`
 * acknowledged, TTS `down/ack`) and `failed` on a negative ack or `down/failed`; unconfirmed ones go `done`
 * when the gateway sent them (ChirpStack `txack`, TTS `down/sent`), since no ack will ever come.
 */
import type { Config } from '../../config.ts';
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
  claimDueDownlinks,
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

const BATCH = 50;

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

function failNow(db: Db, commandId: string, result: Record<string, unknown>, now: number) {
  return inTransaction(db, (trx) => settle(trx, commandId, 'failed', result, now));
}

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

/** The delay before try number `attempts + 1`: the schedule's entry, its last one repeating. */
function delayAfter(attempts: number, schedule: readonly number[]): number {
  if (schedule.length === 0) return 60_000;
  return schedule[Math.min(attempts - 1, schedule.length - 1)] ?? 60_000;
}

async function sendOne(
  db: Db,
  row: DownlinkRow,
  settings: DownlinkSettings,
  now: number,
): Promise<'sent' | 'failed' | 'retry' | 'skipped'> {
  const ctx = await downlinkContext(db, row.command_id);
  if (
    !ctx ||
    (ctx.command_status !== 'queued' && ctx.command_status !== 'delivered') ||
    ctx.expires_at <= now
  ) {
    // Expired, answered or deleted meanwhile: nothing to send.
    await updateDownlink(db, row.command_id, {
      status: 'settled',
      locked_until: null,
      next_attempt_at: null,
    });
    return 'skipped';
  }
  const server = networkServer(ctx.type);
  const built = buildRequest(ctx, server, row.command_id);
  if (!built.ok) {
    await failNow(db, row.command_id, { error: built.error }, now);
    return 'failed';
  }
  const attempts = row.attempts + 1;
  let answer: ApiAnswer | null = null;
  let failure: string;
  try {
    answer = await postToNetworkServer(built.request.url, built.request.body, ctx.api_key, settings);
    failure = `the network server answered HTTP ${answer.status}`;
  } catch (err) {
    failure = describeFailure(err, settings.timeoutMs);
    // An address the SSRF guard refuses will not become allowed by waiting.
    if (isRefusedAddress(err)) {
      await failNow(db, row.command_id, { error: failure }, now);
      return 'failed';
    }
  }
  if (answer && answer.status >= 200 && answer.status < 300) {
    const remoteId = server.acceptedId(answer.body);
    await inTransaction(db, async (trx) => {
      await updateDownlink(trx, row.command_id, {
        status: 'sent',
        confirmed: built.confirmed ? 1 : 0,
        attempts,
        sent_at: now,
        locked_until: null,
        next_attempt_at: null,
        last_error: null,
        remote_id: remoteId,
      });
      if (await markCommandDelivered(trx, row.command_id, now)) metrics.commands.inc({ status: 'delivered' });
    });
    return 'sent';
  }
  if (answer && !retryable(answer.status)) {
    await failNow(
      db,
      row.command_id,
      {
        error: 'The network server refused the downlink.',
        status_code: answer.status,
        response: answer.body as never,
      },
      now,
    );
    return 'failed';
  }
  const next = now + delayAfter(attempts, settings.retryScheduleMs);
  if (next >= ctx.expires_at) {
    await failNow(
      db,
      row.command_id,
      {
        error: 'The network server could not be reached before the command expired.',
        last_error: failure,
        attempts,
        ...(answer ? { status_code: answer.status, response: answer.body as never } : {}),
      },
      now,
    );
    return 'failed';
  }
  await updateDownlink(db, row.command_id, {
    attempts,
    next_attempt_at: next,
    locked_until: null,
    last_error: failure,
  });
  return 'retry';
}

/** Gives every open command of a carried device a downlink row (they are sent by sendDueDownlinks). */
export async function queueDownlinks(db: Db, now: number): Promise<number> {
  const waiting = await commandsWithoutDownlink(db, now, 500);
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

/** One pass of the downlink job: new commands get rows, and due rows are sent (at most 50 at once). */
export async function sendDueDownlinks(
  db: Db,
  settings: DownlinkSettings,
  now: number = Date.now(),
): Promise<Record<'sent' | 'failed' | 'retry' | 'skipped', number>> {
  await queueDownlinks(db, now);
  const counts = { sent: 0, failed: 0, retry: 0, skipped: 0 };
  // The lease outlasts a send (its deadline) so no other process sends the same row meanwhile.
  const claimed = await claimDueDownlinks(db, now, settings.timeoutMs * 2 + 1_000, BATCH);
  const outcomes = await Promise.all(claimed.map((row) => sendOne(db, row, settings, now)));
  for (const outcome of outcomes) counts[outcome]++;
  return counts;
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
