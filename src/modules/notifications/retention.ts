/**
 * The notifications' history is kept as long as webhooks' (FARMSTEAD_WEBHOOK_RETENTION_DAYS, 30): older
 * settled notifications go, never a pending one; acknowledge tokens go a day after they expired.
 */
import type { Db } from '../../db/schema.ts';
import { DAY_MS } from '../../lib/time.ts';
import { pruneAckTokens, pruneNotifications } from './repository.ts';

export async function pruneNotificationHistory(
  db: Db,
  now: number,
  retentionDays: number,
): Promise<{ notifications: number; tokens: number }> {
  const notifications = await pruneNotifications(db, now - retentionDays * DAY_MS);
  const tokens = await pruneAckTokens(db, now - DAY_MS);
  return { notifications, tokens };
}
