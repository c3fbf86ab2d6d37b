/**
 * SQLite checkpoints off the event loop, for the server. Left to itself SQLite copies the WAL back into the
 * database file inside whichever commit crosses `wal_autocheckpoint`, so every few thousand reports one of
 * them stalls the event loop while pages are copied and the file synced (about an eighth of a 100-reading
 * report's time: BENCHMARKS.md). The server instead checkpoints once a second from a worker thread on a
 * connection of its own (PASSIVE: it never waits for, or blocks, the writer or readers), so commits only
 * append to the WAL. The writer keeps a far higher automatic checkpoint as a bound on the WAL, should the
 * worker fall behind or stop. What a commit guarantees does not change: it is in the WAL when answered.
 */
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';

/** The writer's own checkpoint, now only a bound: about 400 MB of WAL (4 KB pages). */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 100_000;

export interface BackgroundCheckpoints {
  stop(): Promise<void>;
}

export function startBackgroundCheckpoints(
  writer: DatabaseSync,
  file: string,
  everyMs = 1000,
): BackgroundCheckpoints {
  writer.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const worker = new Worker(new URL('./sqlite-checkpoint-worker.ts', import.meta.url), {
    workerData: { file, everyMs },
  });
  // A failing worker leaves the fallback bound in charge; it must not take the server down.
  worker.on('error', (err) => process.stderr.write(`SQLite checkpoint worker stopped: ${err.message}\n`));
  worker.unref();
  return {
    stop: async () => {
      await worker.terminate();
    },
  };
}
