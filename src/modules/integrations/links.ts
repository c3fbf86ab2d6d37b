/**
 * A device's LoRaWAN settings (its link to an integration): preset, mapping and encoder, what applies, its
 * last uplink and that uplink as the mapping stores it (the console's live preview); linking and unlinking.
 */
import { isUniqueViolation } from '../../db/engine.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { conflict, invalid, notFound } from '../../domain/errors.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Scope } from '../farms/access.ts';
import { loadScoped } from '../records/scoped.ts';
import { effectiveSettings } from './effective.ts';
import { applyMapping, type Mapping } from './mapping.ts';
import { normalizeEui } from './network-events.ts';
import type { Encoder } from './presets.ts';
import {
  deleteLink,
  type IntegrationRow,
  integrationById,
  type LinkRow,
  linkOfDevice,
  linksOfIntegration,
  saveLink,
} from './repository.ts';
import type { DeviceLink, IntegrationDefault, PutDeviceLinkInput } from './schemas.ts';
import { checkSettings } from './service.ts';

interface StoredUplink {
  at: number;
  f_port: number | null;
  f_cnt: number | null;
  decoded: Record<string, unknown> | null;
  rssi: number | null;
  snr: number | null;
  profile?: string | null;
}

function toDeviceLink(
  link: LinkRow,
  integration: IntegrationRow,
  deviceName: string,
  mappingOverride?: Mapping,
): DeviceLink {
  const last = parseJson<StoredUplink | null>(link.last_uplink, null);
  const own = {
    preset: link.preset,
    mapping: parseJson<Mapping | null>(link.mapping, null),
    encoder: parseJson<Encoder | null>(link.encoder, null),
  };
  const effective = effectiveSettings(own, parseJson<IntegrationDefault[]>(integration.defaults, []), {
    name: deviceName,
    profile: last?.profile ?? null,
  });
  const mapped = applyMapping(last?.decoded ?? {}, mappingOverride ?? effective.mapping, {
    rssi: last?.rssi ?? null,
    snr: last?.snr ?? null,
  });
  return {
    device_id: link.device_id,
    integration_id: link.integration_id,
    dev_eui: link.dev_eui,
    remote_id: link.remote_id,
    ...own,
    effective,
    last_uplink: last
      ? {
          at: toIso(last.at),
          f_port: last.f_port,
          f_cnt: last.f_cnt,
          decoded: last.decoded,
          rssi: last.rssi,
          snr: last.snr,
        }
      : null,
    preview: mapped,
  };
}

async function loadLink(db: Db, scope: Scope, deviceId: string) {
  const device = await loadScoped(db, scope, 'device', deviceId);
  const link = await linkOfDevice(db, device.id);
  if (!link) {
    throw notFound(
      'device',
      `${device.id} (no LoRaWAN integration carries this device; PUT /v1/devices/${device.id}/lorawan links it)`,
    );
  }
  const integration = await integrationById(db, link.integration_id);
  if (!integration) throw notFound('integration', link.integration_id);
  return { device, link, integration };
}

/** The devices an integration carries, each with its settings, last uplink and preview (the console's list). */
export async function listIntegrationDevices(
  db: Db,
  scope: Scope,
  id: string,
): Promise<{ data: (DeviceLink & { device_name: string })[] }> {
  const integration = await loadScoped(db, scope, 'integration', id);
  const links = await linksOfIntegration(db, integration.id);
  return {
    data: links.map((l) => ({ ...toDeviceLink(l, integration, l.device_name), device_name: l.device_name })),
  };
}

/** A device's LoRaWAN settings, what applies, its last uplink and that uplink as the mapping stores it. */
export async function getDeviceLink(db: Db, scope: Scope, deviceId: string): Promise<DeviceLink> {
  const { device, link, integration } = await loadLink(db, scope, deviceId);
  return toDeviceLink(link, integration, device.name);
}

/** The last uplink as `mapping` would store it (nothing is saved): the console's live preview. */
export async function previewDeviceLink(
  db: Db,
  scope: Scope,
  deviceId: string,
  mapping: Mapping,
): Promise<DeviceLink> {
  checkSettings({ mapping }, '');
  const { device, link, integration } = await loadLink(db, scope, deviceId);
  return toDeviceLink(link, integration, device.name, mapping);
}

/** Links a device to an integration (same farm) with its preset, mapping and encoder. */
export async function putDeviceLink(
  db: Db,
  scope: Scope,
  deviceId: string,
  input: PutDeviceLinkInput,
  now: number = Date.now(),
): Promise<DeviceLink> {
  checkSettings(input, '');
  return inTransaction(db, async (trx) => {
    const device = await loadScoped(trx, scope, 'device', deviceId);
    const integration = await loadScoped(trx, scope, 'integration', input.integration_id).catch(() => {
      throw invalid(
        'integration_id',
        `integration_id "${input.integration_id}" is not an integration of this account.`,
      );
    });
    if (integration.farm_id !== device.farm_id) {
      throw invalid('integration_id', 'The integration is on another farm than the device.');
    }
    const fromSerial = device.serial?.toLowerCase().replace(/^eui:/, '') ?? '';
    const raw = input.dev_eui ?? fromSerial;
    if (!raw) {
      throw invalid(
        'dev_eui',
        'dev_eui is required: the device has no serial holding its DevEUI (eui:<16 hex digits>).',
      );
    }
    const devEui = normalizeEui(raw.replace(/^eui:/i, ''), 'dev_eui');
    const existing = await linkOfDevice(trx, device.id);
    const keep = existing?.integration_id === integration.id ? existing : undefined;
    const row = {
      device_id: device.id,
      integration_id: integration.id,
      dev_eui: devEui,
      remote_id: input.remote_id !== undefined ? input.remote_id : (keep?.remote_id ?? null),
      preset: input.preset !== undefined ? input.preset : (keep?.preset ?? null),
      mapping:
        input.mapping !== undefined
          ? input.mapping
            ? JSON.stringify(input.mapping)
            : null
          : (keep?.mapping ?? null),
      encoder:
        input.encoder !== undefined
          ? input.encoder
            ? JSON.stringify(input.encoder)
            : null
          : (keep?.encoder ?? null),
      last_uplink: keep?.last_uplink ?? null,
      last_uplink_at: keep?.last_uplink_at ?? null,
      created_at: keep?.created_at ?? now,
    };
    try {
      await saveLink(trx, row);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw conflict(`Another device of this integration has DevEUI ${devEui}.`, 'dev_eui');
      }
      throw err;
    }
    return toDeviceLink(row, integration, device.name);
  });
}

/**
 * Unlinks a device and forgets its mapping and encoder. The device stays; an uplink whose DevEUI its serial
 * still holds links it again, with no mapping of its own.
 */
export async function deleteDeviceLink(
  db: Db,
  scope: Scope,
  deviceId: string,
): Promise<{ id: string; deleted: true }> {
  const { device } = await loadLink(db, scope, deviceId);
  await deleteLink(db, device.id);
  return { id: device.id, deleted: true };
}
