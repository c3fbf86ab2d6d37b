/**
 * The server's VAPID key pair (RFC 8292): FARMSTEAD_VAPID_PUBLIC_KEY/PRIVATE_KEY when given, else a pair made
 * on first use and kept in the database (`notification_keys`), so every process and every restart signs with
 * the same key and browsers' subscriptions keep working. Kept per database handle once read.
 */
import type { Db } from '../../db/schema.ts';
import { newVapidKeys, type VapidKeys } from './channels/web-push.ts';
import { insertKeysOnce, storedKeys } from './repository.ts';

const cache = new WeakMap<object, { publicKey: string; privateKey: string }>();

export async function vapidKeys(
  db: Db,
  config: { vapidKeys: { publicKey: string; privateKey: string } | null; vapidSubject: string },
): Promise<VapidKeys> {
  if (config.vapidKeys) return { ...config.vapidKeys, subject: config.vapidSubject };
  let keys = cache.get(db);
  if (!keys) {
    let row = await storedKeys(db);
    if (!row) {
      const made = await newVapidKeys();
      await insertKeysOnce(db, { public_key: made.publicKey, private_key: made.privateKey }, Date.now());
      row = await storedKeys(db);
    }
    if (!row) throw new Error('the VAPID key pair could not be stored');
    keys = { publicKey: row.public_key, privateKey: row.private_key };
    cache.set(db, keys);
  }
  return { ...keys, subject: config.vapidSubject };
}
