/**
 * The per-report half of device.quiet: the background pass (alert-passes/quiet.ts) opens and escalates
 * a silent device's alert; the device's next report resolves it here, inside the report's transaction.
 */
import type { Trx } from '../../db/schema.ts';
import { DEVICE_QUIET_RULE } from '../../domain/built-in-rules.ts';
import { toIso } from '../../lib/time.ts';
import { findActiveAlert } from '../alerts/repository.ts';
import { resolveAlertRow } from '../alerts/service.ts';
import { clearDeviceQuiet } from './repository.ts';

/**
 * A report from a device with a quiet alert resolves it (`alert.resolved`). Ingest passes the device's
 * quiet level from the row it already updated, so a device that was not quiet costs nothing here.
 */
export async function resolveQuietAlert(
  trx: Trx,
  device: { id: string; farm_id: string; name: string },
  now: number,
): Promise<void> {
  const active = await findActiveAlert(trx, {
    farmId: device.farm_id,
    rule: DEVICE_QUIET_RULE.name,
    subjectType: 'device',
    subjectId: device.id,
  });
  if (active)
    await resolveAlertRow(
      trx,
      active,
      now,
      `${active.reason} — resolved: ${device.name} reported again ${toIso(now)}`,
      { key: 'resolved.reported_again', params: { device: device.name, at: String(toIso(now)) } },
    );
  await clearDeviceQuiet(trx, device.id);
}
