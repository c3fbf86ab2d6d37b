/**
 * A farm's LoRaWAN integrations: create (the uplink URL and secret shown once), read, change, delete, rotate
 * the secret; the DevEUIs heard but not adopted, and adopting one as a device in one call. A device's own
 * settings are links.ts, uplinks receive.ts, downlinks downlinks.ts.
 */
import { checkOutboundUrl } from '../../calls/outbound-url.ts';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { invalid, notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { parseJson } from '../../lib/json.ts';
import { hashSecret, randomToken, sameSecret } from '../../lib/secrets.ts';
import { toIso } from '../../lib/time.ts';
import type { Device } from '../devices/schemas.ts';
import { createDevice } from '../devices/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { loadScoped } from '../records/scoped.ts';
import { encoderProblem } from './downlink.ts';
import { type Mapping, mappingProblem } from './mapping.ts';
import { normalizeEui } from './network-events.ts';
import type { ApiSettings } from './network-server.ts';
import { networkServer, networkServerName } from './network-servers.ts';
import { type Encoder, PRESET_BY_NAME, PRESETS } from './presets.ts';
import {
  deleteIntegrationRow,
  type IntegrationRow,
  insertIntegration,
  integrationById,
  integrationsOnFarm,
  pruneUplinkKeys as pruneKeysBefore,
  saveLink,
  takeUnmatched,
  type UnmatchedRow,
  unmatchedOf,
  updateIntegrationRow,
} from './repository.ts';
import type {
  AdoptInput,
  CreateIntegrationInput,
  Integration,
  IntegrationDefault,
  Unmatched,
  UpdateIntegrationInput,
} from './schemas.ts';

export interface IntegrationOptions {
  /** The service's public address (FARMSTEAD_PUBLIC_URL): the uplink URL is under it. */
  publicUrl: string;
  /** FARMSTEAD_WEBHOOK_ALLOW_PRIVATE: api_url may be on the farm's own network. */
  allowPrivate: boolean;
  now?: number;
}

const SECRET_PREFIX = 'lwi_';

function newSecret(): { secret: string; hash: string; prefix: string } {
  const secret = `${SECRET_PREFIX}${randomToken(32)}`;
  return { secret, hash: hashSecret(secret), prefix: secret.slice(0, 9) };
}

export function uplinkUrl(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1/integrations/${id}/uplink`;
}

/** The API object; never the API key or the secret's hash. */
export function toIntegration(row: IntegrationRow, publicUrl: string): Integration {
  return {
    id: row.id,
    farm_id: row.farm_id,
    type: networkServerName(row.type),
    name: row.name,
    uplink_url: uplinkUrl(publicUrl, row.id),
    secret_prefix: row.secret_prefix,
    api_url: row.api_url,
    api_key_set: row.api_key !== null,
    application_id: row.application_id,
    webhook_id: row.webhook_id,
    defaults: parseJson<IntegrationDefault[]>(row.defaults, []),
    created_at: toIso(row.created_at),
  };
}

/** Throws 400 naming the member when a mapping, an encoder or a preset cannot work. */
export function checkSettings(
  settings: {
    preset?: string | null | undefined;
    mapping?: Mapping | null | undefined;
    encoder?: Encoder | null | undefined;
  },
  param: string,
): void {
  if (settings.preset && !PRESET_BY_NAME.has(settings.preset)) {
    throw invalid(
      `${param}preset`,
      `${param}preset "${settings.preset}" is not a preset; GET /v1/integration-presets lists them (${PRESETS.map((p) => p.name).join(', ')}).`,
    );
  }
  const mapping = settings.mapping ? mappingProblem(settings.mapping, `${param}mapping`) : null;
  if (mapping) throw invalid(mapping.param, mapping.message);
  const encoder = settings.encoder ? encoderProblem(settings.encoder, `${param}encoder`) : null;
  if (encoder) throw invalid(encoder.param, encoder.message);
}

function checkDefaults(defaults: readonly IntegrationDefault[]): void {
  for (const [i, d] of defaults.entries()) checkSettings(d, `defaults[${i}].`);
}

/** The network server's API: guarded, and with no login in it (it would be shown back: the key is api_key). */
function checkApiUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const url = URL.parse(raw);
  if (url && (url.username || url.password)) {
    throw invalid(
      'api_url',
      'api_url must not carry a login (user:password@): give the network server’s API key in api_key, which is never shown back.',
    );
  }
  return checkOutboundUrl(raw, { allowPrivate, param: 'api_url' });
}

/** Throws 400 naming the member when the integration's server cannot send downlinks with these settings. */
function checkApi(type: string, settings: ApiSettings): void {
  const problem = networkServer(type).apiProblem(settings);
  if (problem) throw invalid(problem.param, problem.message);
}

export async function createIntegration(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateIntegrationInput,
  options: IntegrationOptions,
): Promise<Integration & { secret: string }> {
  const now = options.now ?? Date.now();
  const farm = await requireFarm(db, scope, farmId);
  const defaults = input.defaults ?? [];
  checkDefaults(defaults);
  const apiUrl = input.api_url === undefined ? null : await checkApiUrl(input.api_url, options.allowPrivate);
  const secret = newSecret();
  const row: IntegrationRow = {
    id: newId('integration', now),
    farm_id: farm.id,
    type: input.type,
    name: input.name,
    secret_hash: secret.hash,
    secret_prefix: secret.prefix,
    api_url: apiUrl,
    api_key: input.api_key ?? null,
    application_id: input.application_id ?? null,
    webhook_id: input.webhook_id ?? null,
    defaults: JSON.stringify(defaults),
    created_at: now,
  };
  checkApi(row.type, row);
  await insertIntegration(db, row);
  return { ...toIntegration(row, options.publicUrl), secret: secret.secret };
}

export async function listIntegrations(
  db: Db,
  scope: Scope,
  farmId: string,
  page: PageRequest,
  publicUrl: string,
): Promise<Page<Integration>> {
  const farm = await requireFarm(db, scope, farmId);
  return fetchPage(integrationsOnFarm(db, farm.id), page, (row) => toIntegration(row, publicUrl));
}

export async function getIntegration(
  db: Db,
  scope: Scope,
  id: string,
  publicUrl: string,
): Promise<Integration> {
  return toIntegration(await loadScoped(db, scope, 'integration', id), publicUrl);
}

export async function updateIntegration(
  db: Db,
  scope: Scope,
  id: string,
  input: UpdateIntegrationInput,
  options: IntegrationOptions,
): Promise<Integration> {
  if (input.defaults) checkDefaults(input.defaults);
  const apiUrl =
    input.api_url === undefined || input.api_url === null
      ? input.api_url
      : await checkApiUrl(input.api_url, options.allowPrivate);
  // A PATCH writes only the members it names: nothing read is written back, so no lock is needed.
  const row = await loadScoped(db, scope, 'integration', id);
  const patch: Partial<IntegrationRow> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (apiUrl !== undefined) patch.api_url = apiUrl;
  if (input.api_key !== undefined) patch.api_key = input.api_key;
  if (input.application_id !== undefined) patch.application_id = input.application_id;
  if (input.webhook_id !== undefined) patch.webhook_id = input.webhook_id;
  if (input.defaults !== undefined) patch.defaults = JSON.stringify(input.defaults);
  const next = { ...row, ...patch };
  checkApi(next.type, next);
  if (Object.keys(patch).length > 0) await updateIntegrationRow(db, row.id, patch);
  return toIntegration(next, options.publicUrl);
}

/** Deletes the integration; its devices stay (without their mappings), its pending downlinks go. */
export async function deleteIntegration(
  db: Db,
  scope: Scope,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const row = await loadScoped(db, scope, 'integration', id);
  await deleteIntegrationRow(db, row.id);
  return { id: row.id, deleted: true };
}

/** A new uplink secret, shown once; the old one stops working at once. */
export async function rotateIntegrationSecret(
  db: Db,
  scope: Scope,
  id: string,
  publicUrl: string,
): Promise<Integration & { secret: string }> {
  const row = await loadScoped(db, scope, 'integration', id);
  const secret = newSecret();
  await updateIntegrationRow(db, row.id, { secret_hash: secret.hash, secret_prefix: secret.prefix });
  return {
    ...toIntegration({ ...row, secret_hash: secret.hash, secret_prefix: secret.prefix }, publicUrl),
    secret: secret.secret,
  };
}

/** The integration whose uplink secret this is, or null (unknown id or wrong secret: the same answer). */
export async function integrationForSecret(
  db: Db,
  id: string,
  secret: string | null,
): Promise<IntegrationRow | null> {
  if (!secret) return null;
  const row = await integrationById(db, id);
  if (!row) return null;
  return sameSecret(Buffer.from(hashSecret(secret), 'hex'), Buffer.from(row.secret_hash, 'hex')) ? row : null;
}

function toUnmatched(row: UnmatchedRow): Unmatched {
  return {
    dev_eui: row.dev_eui,
    device_name: row.device_name,
    profile: row.profile,
    decoded: parseJson<Record<string, unknown> | null>(row.decoded, null),
    f_port: row.f_port,
    uplinks: row.uplinks,
    first_seen_at: toIso(row.first_seen_at),
    last_seen_at: toIso(row.last_seen_at),
  };
}

/** DevEUIs the integration heard that match no device: newest first, at most 500. */
export async function listUnmatched(db: Db, scope: Scope, id: string): Promise<{ data: Unmatched[] }> {
  const row = await loadScoped(db, scope, 'integration', id);
  return { data: (await unmatchedOf(db, row.id)).map(toUnmatched) };
}

/**
 * Adopts an unmatched DevEUI: a new device (serial `eui:<hex>`, its key shown once) carried by the
 * integration with the chosen preset or mapping, in one transaction; the DevEUI leaves the unmatched list.
 */
export async function adoptUnmatched(
  db: Db,
  scope: Scope,
  id: string,
  eui: string,
  input: AdoptInput,
  now: number = Date.now(),
): Promise<Device & { device_key: string }> {
  checkSettings({ preset: input.preset, mapping: input.mapping }, '');
  const devEui = normalizeEui(eui, 'eui');
  return inTransaction(db, async (trx) => {
    const integration = await loadScoped(trx, scope, 'integration', id);
    const heard = await takeUnmatched(trx, integration.id, devEui);
    if (!heard) {
      throw notFound('integration', `${integration.id}/unmatched/${devEui}`);
    }
    const preset = input.preset ? PRESET_BY_NAME.get(input.preset) : undefined;
    const device = await createDevice(
      trx,
      scope,
      integration.farm_id,
      {
        type: input.type ?? preset?.device_type ?? 'other',
        name: input.name ?? heard.device_name ?? `LoRaWAN ${devEui}`,
        serial: `eui:${devEui}`,
      },
      { now },
    );
    await saveLink(trx, {
      device_id: device.id,
      integration_id: integration.id,
      dev_eui: devEui,
      remote_id: heard.remote_id,
      preset: input.preset ?? null,
      mapping: input.mapping ? JSON.stringify(input.mapping) : null,
      encoder: null,
      last_uplink: heard.decoded
        ? JSON.stringify({
            at: heard.last_seen_at,
            f_port: heard.f_port,
            f_cnt: null,
            decoded: parseJson(heard.decoded, null),
            rssi: null,
            snr: null,
          })
        : null,
      last_uplink_at: heard.decoded ? heard.last_seen_at : null,
      created_at: now,
    });
    return device;
  });
}

export function listPresets() {
  return { data: PRESETS.map((p) => ({ ...p })) };
}

/** How long an uplink's key is kept: a network server retrying later than this would store it again. */
export const UPLINK_KEY_DAYS = 7;

/** Deletes uplink keys older than UPLINK_KEY_DAYS. */
export async function pruneUplinkKeys(db: Db, now: number): Promise<number> {
  return pruneKeysBefore(db, now - UPLINK_KEY_DAYS * 86_400_000);
}
