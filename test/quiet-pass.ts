/**
 * One device.quiet pass in its own process, for the multi-process test: `quiet-pass.ts <database url>
 * <now ms> <start at ms>` waits until `start at` (so several processes run at the same moment), runs
 * checkQuietDevices with the injected clock and prints its result as JSON.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/database.ts';
import { checkQuietDevices } from '../src/modules/alert-passes/quiet.ts';

const [url, nowText, startText] = process.argv.slice(2);
if (!url || !nowText || !startText)
  throw new Error('usage: quiet-pass.ts <database url> <now ms> <start at ms>');
const database = await openDatabase({ databaseUrl: url, dataDir: '', pgPoolSize: 2 });
try {
  await database.db.selectFrom('farms').select('id').limit(1).execute(); // connected before the start line
  await sleep(Math.max(0, Number(startText) - Date.now()));
  const result = await checkQuietDevices(database.db, Number(nowText));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await database.close();
}
