/**
 * "A report of this farm just committed", within this process: what lets a stream that asked for
 * `device.reported` frames send them at once. Ingest calls `reportCommitted` after every report; with no
 * stream watching the farm that is one Map lookup, so the ingest path costs the same when nobody listens.
 * Reports another process stored reach the streams by the hub's poll (docs/stream.md).
 */

const watchers = new Map<string, Set<() => void>>();

/** Calls `onReport` after each report of the farm this process commits; returns the function that stops it. */
export function watchReports(farmId: string, onReport: () => void): () => void {
  let set = watchers.get(farmId);
  if (!set) {
    set = new Set();
    watchers.set(farmId, set);
  }
  set.add(onReport);
  return () => {
    const current = watchers.get(farmId);
    current?.delete(onReport);
    if (current?.size === 0) watchers.delete(farmId);
  };
}

/** A device report of the farm committed. */
export function reportCommitted(farmId: string): void {
  const set = watchers.get(farmId);
  if (set) for (const onReport of set) onReport();
}
