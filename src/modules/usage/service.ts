import type { Db } from '../../db/schema.ts';
import { SURFACES, type Surface } from '../../domain/usage.ts';
import { DAY_MS } from '../../lib/time.ts';
import { usageCountsSince } from './repository.ts';

type Counts = Record<Surface, number> & { total: number };
const empty = (): Counts => ({ api: 0, ingest: 0, mcp: 0, total: 0 });

export async function getUsage(db: Db, accountId: string, days = 90) {
  const since = new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
  const rows = await usageCountsSince(db, accountId, since);
  const byDay = new Map<string, Counts>();
  const totals = empty();
  for (const row of rows) {
    const surface = row.surface as Surface;
    if (!SURFACES.includes(surface)) continue;
    const day = byDay.get(row.day) ?? empty();
    day[surface] += Number(row.count);
    day.total += Number(row.count);
    totals[surface] += Number(row.count);
    totals.total += Number(row.count);
    byDay.set(row.day, day);
  }
  return { account_id: accountId, days: [...byDay].map(([day, c]) => ({ day, ...c })), totals };
}
