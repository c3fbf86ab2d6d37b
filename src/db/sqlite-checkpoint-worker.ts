/** The checkpoint thread (sqlite-checkpoint.ts): a PASSIVE checkpoint of the database every `everyMs`. */
import { DatabaseSync } from 'node:sqlite';
import { workerData } from 'node:worker_threads';
import { SQLITE_BUSY_TIMEOUT_MS } from './sqlite-adapter.ts';

const { file, everyMs } = workerData as { file: string; everyMs: number };
const db = new DatabaseSync(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // Busy with a writer's own checkpoint, or a backup: the next round catches up.
  }
}, everyMs);
