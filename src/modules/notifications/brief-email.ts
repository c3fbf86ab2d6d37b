/**
 * The morning brief by email: at the time each person chose for a farm (`brief_email_at`, default 06:00
 * farm time for owners), the farm's brief (modules/brief) is emailed when it has something that needs
 * attention, its headline as the subject. Once a local day per person and farm (the notification's unique
 * key: `brief:<person>:<farm>:<date>`); a day whose brief needs nothing is logged as skipped. A brief more
 * than two hours late (the server was down) is not sent that day.
 */
import type { Db } from '../../db/schema.ts';
import type { RoleName } from '../../domain/permissions.ts';
import { parseJson } from '../../lib/json.ts';
import { dateText, localParts } from '../../lib/local-time.ts';
import { HOUR_MS } from '../../lib/time.ts';
import { buildBrief } from '../brief/service.ts';
import { inUnitsOf, say } from './content.ts';
import { notificationRow } from './plan.ts';
import { insertNotifications } from './repository.ts';
import { effectiveSettings, type PersonFarmSettings } from './settings.ts';

const LATE_LIMIT_MS = 2 * HOUR_MS;

/** Who may get a brief: every person of an account with email, for each of its farms but the sample. */
function candidates(db: Db) {
  return db
    .selectFrom('people as p')
    .innerJoin('farms as f', (join) => join.onRef('f.account_id', '=', 'p.account_id').on('f.sample', '=', 0))
    .leftJoin('notification_settings as s', (join) =>
      join.onRef('s.person_id', '=', 'p.id').onRef('s.farm_id', '=', 'f.id'),
    )
    .select([
      'p.id as person_id',
      'p.role',
      'p.units',
      'p.language',
      'f.id as farm_id',
      'f.account_id',
      'f.mode',
      'f.timezone',
      's.settings',
    ])
    .execute();
}

function dueToday(brief: string, now: number, timeZone: string): string | null {
  const p = localParts(now, timeZone);
  const [h, m] = brief.split(':').map(Number) as [number, number];
  const minutesLate = p.hour * 60 + p.minute - (h * 60 + m);
  if (minutesLate < 0 || minutesLate * 60_000 > LATE_LIMIT_MS) return null;
  return dateText(p);
}

/** Queues the briefs due at `now` that were not queued yet. Returns how many emails were queued. */
export async function queueDueBriefs(db: Db, options: { now: number; publicUrl: string; email: boolean }) {
  if (!options.email) return 0;
  const rows = await candidates(db);
  const due = rows
    .map((r) => {
      const s: PersonFarmSettings = effectiveSettings(
        r.role as RoleName,
        r.settings ? parseJson<Partial<PersonFarmSettings>>(r.settings, {}) : null,
      );
      const date = s.brief_email_at ? dueToday(s.brief_email_at, options.now, r.timezone) : null;
      return date ? { ...r, dedupe: `brief:${r.person_id}:${r.farm_id}:${date}` } : null;
    })
    .filter((r) => r !== null);
  if (due.length === 0) return 0;
  const known = new Set(
    (
      await db
        .selectFrom('notifications')
        .select('dedupe_key')
        .where(
          'dedupe_key',
          'in',
          due.map((d) => d.dedupe),
        )
        .execute()
    ).map((r) => r.dedupe_key),
  );
  let queued = 0;
  for (const d of due) {
    if (known.has(d.dedupe)) continue;
    const brief = await buildBrief(
      db,
      { accountId: d.account_id, mode: d.mode },
      d.farm_id,
      options.now,
      d.language,
    );
    const needsAttention = brief.items.length > 0;
    const row = notificationRow({
      person: d.person_id,
      farm: d.farm_id,
      alert: null,
      kind: 'brief',
      channel: 'email',
      step: 0,
      dedupe: d.dedupe,
      severity: null,
      // The brief is written in the person's language and the catalog's units: each quantity in theirs.
      title: say(d, 'brief_subject', { farm: brief.farm_name, headline: inUnitsOf(d, brief.headline) }),
      body: inUnitsOf(d, brief.text),
      url: `${options.publicUrl}/`,
      due: options.now,
      now: options.now,
    });
    if (!needsAttention) {
      Object.assign(row, {
        status: 'skipped',
        next_attempt_at: null,
        answer: 'not sent: nothing in the brief needed attention',
      });
    } else {
      queued++;
    }
    await insertNotifications(db, [row]);
  }
  return queued;
}
