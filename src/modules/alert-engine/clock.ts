/**
 * device.clock: a report whose readings or events were dated too far ahead of the server's clock (ingest
 * refused them: ingest/clock.ts) opens one watch alert about the device's clock, whatever the number of
 * refused times, and the one-active-alert index keeps it one across reports and processes. The device row
 * carries a mark (`clock_skewed`, migration 0023) while such an alert may be active, so the device's next
 * report with readings or events all dated within the tolerance resolves it without a look-up on every
 * report; a report of neither (a heartbeat) says nothing about the clock and leaves it.
 */
import type { Trx } from '../../db/schema.ts';
import type { AlertWords } from '../../domain/alert-words.ts';
import { DEVICE_CLOCK_RULE, farmClockRule } from '../../domain/built-in-rules.ts';
import { newId } from '../../domain/ids.ts';
import { metrics } from '../../lib/metrics.ts';
import { toIso } from '../../lib/time.ts';
import {
  type AlertKey,
  findActiveAlert,
  insertActiveAlert,
  SEVERITY_RANK,
  toAlert,
} from '../alerts/repository.ts';
import { resolveAlertRow } from '../alerts/service.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { markDeviceClock } from './repository.ts';

/** What a report said about its device's clock. */
export interface ClockReport {
  /** Readings and events refused for a time too far ahead, and the furthest of those times (epoch ms). */
  refused: number;
  furthest: number | null;
  /** Readings and events stored (all within the tolerance). */
  stored: number;
  toleranceMs: number;
}

function clockKey(device: { id: string }, farmId: string): AlertKey {
  return { farmId, rule: DEVICE_CLOCK_RULE.name, subjectType: 'device', subjectId: device.id };
}

/** "Clock ahead: House 2" / "House 2 dated 3 readings or events up to 2030-01-01T00:00:00.000Z, …". */
export function clockAlertWords(
  device: { name: string },
  clock: ClockReport,
  now: number,
): { title: string; reason: string; words: AlertWords } {
  const furthest = clock.furthest === null ? '' : ` up to ${toIso(clock.furthest)}`;
  const what = clock.refused === 1 ? 'a reading or event' : `${clock.refused} readings or events`;
  const tolerance = String(Math.round(clock.toleranceMs / 1000));
  return {
    words: {
      title: {
        key: 'clock.title',
        params: { rule: DEVICE_CLOCK_RULE.title, device: device.name },
        terms: { rule: 'rule.device.clock.title' },
      },
      reason: {
        key: clock.furthest === null ? 'clock.reason' : 'clock.reason.furthest',
        params: {
          device: device.name,
          count: clock.refused,
          tolerance,
          now: toIso(now),
          ...(clock.furthest === null ? {} : { furthest: toIso(clock.furthest) }),
        },
      },
    },
    title: `${DEVICE_CLOCK_RULE.title}: ${device.name}`,
    reason:
      `${device.name} dated ${what}${furthest}, more than ${Math.round(clock.toleranceMs / 1000)} s ahead ` +
      `of the server's clock (${toIso(now)}); they were not stored. Set the device's clock, or leave at out.`,
  };
}

/**
 * Opens the device's clock alert for a report with refused times (nothing when one is active, or the farm
 * turned the rule off), or resolves it for a report whose times were all sane.
 */
export async function settleClockAlert(
  trx: Trx,
  report: {
    farm: { id: string; settings: string };
    device: { id: string; name: string; clock_skewed?: number | null };
    clock: ClockReport;
    receivedAt: number;
  },
): Promise<void> {
  const { farm, device, clock, receivedAt: now } = report;
  if (clock.refused > 0) {
    if (!farmClockRule(farm.settings).enabled) return;
    const words = clockAlertWords(device, clock, now);
    const key = clockKey(device, farm.id);
    const inserted = await insertActiveAlert(trx, {
      id: newId('alert', now),
      farm_id: farm.id,
      severity: DEVICE_CLOCK_RULE.severity,
      severity_rank: SEVERITY_RANK[DEVICE_CLOCK_RULE.severity],
      title: words.title,
      reason: words.reason,
      rule: key.rule,
      subject_type: key.subjectType,
      subject_id: key.subjectId,
      status: 'open',
      created_at: now,
      updated_at: now,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      words: JSON.stringify(words.words),
    });
    if (inserted) {
      await emitEvent(trx, farm.id, 'alert.created', toAlert(inserted), now);
      metrics.alertsOpened.inc({ rule: inserted.rule, severity: inserted.severity });
    }
    if (!device.clock_skewed) await markDeviceClock(trx, device.id, true);
    return;
  }
  if (clock.stored === 0 || !device.clock_skewed) return;
  const active = await findActiveAlert(trx, clockKey(device, farm.id));
  if (active) {
    await resolveAlertRow(
      trx,
      active,
      now,
      `${active.reason} — resolved: ${device.name} reported with times within the tolerance ${toIso(now)}`,
      { key: 'resolved.clock', params: { device: device.name, at: String(toIso(now)) } },
    );
  }
  await markDeviceClock(trx, device.id, false);
}
