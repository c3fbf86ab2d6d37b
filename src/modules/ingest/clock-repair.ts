/**
 * The start-up repair of times a device stored in the future before ingest refused them (clock.ts): an
 * alert watermark, a sustained-breach start or a latest value dated beyond the server's clock plus the
 * tolerance would otherwise stop every real reading from being evaluated, or stand as the device's latest
 * value, until that date. `serve` runs it once at start, on either engine, before it takes reports; the
 * engine also ignores such a watermark by itself (alerts/engine-repository.ts), so a process that has not
 * restarted is not blinded either. The readings themselves stay stored (listed and exported as they are).
 * Statements kept here, beside the one step that runs them, like readings/retention.ts's DDL.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { latestAllowed } from './clock.ts';

export interface ClockRepair {
  /** Watermarks dropped (the next reading of the device and metric is evaluated as the first). */
  watermarks: number;
  /** Sustained-breach starts dropped (the run is counted again from the next reading). */
  breaches: number;
  /** Latest values set back to the newest stored reading within the bound, or dropped when there is none. */
  latest: number;
}

/** Repairs what is stored beyond `now` + `skewMs`, in one transaction. */
export async function repairFutureTimes(db: Db, now: number, skewMs: number): Promise<ClockRepair> {
  const bound = latestAllowed(now, skewMs);
  return inTransaction(db, async (trx) => {
    const watermarks = await trx.deleteFrom('alert_watermarks').where('at', '>', bound).executeTakeFirst();
    const breaches = await trx.deleteFrom('alert_breaches').where('since', '>', bound).executeTakeFirst();
    const newest = (column: 'value' | 'unit' | 'at') =>
      sql`(select r.${sql.ref(column)} from readings r where r.device_id = device_latest.device_id
        and r.metric = device_latest.metric and r.at <= ${bound} order by r.at desc limit 1)`;
    const reset = await sql`update device_latest
      set value = ${newest('value')}, unit = ${newest('unit')}, at = ${newest('at')}
      where at > ${bound} and exists (select 1 from readings r where r.device_id = device_latest.device_id
        and r.metric = device_latest.metric and r.at <= ${bound})`.execute(trx);
    const dropped = await trx.deleteFrom('device_latest').where('at', '>', bound).executeTakeFirst();
    return {
      watermarks: Number(watermarks.numDeletedRows),
      breaches: Number(breaches.numDeletedRows),
      latest: Number(reset.numAffectedRows ?? 0) + Number(dropped.numDeletedRows),
    };
  });
}
