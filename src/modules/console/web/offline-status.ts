/**
 * The field app's state for the shell and pages (docs/offline.md): whether the server is reachable, how old
 * the phone's data is, how many changes wait. Kept apart from offline-data.ts (IndexedDB, the queue), which
 * loads after the first page is shown, so this small part is all a page's first load carries.
 */
import { changeSignal } from './lib.ts';

export interface OfflineStatus {
  /** Whether the last call reached the server (and the browser says it is online). */
  online: boolean;
  /** When the chosen farm's data on the phone was last refreshed (ISO), or null. */
  asOf: string | null;
  waiting: number;
  attention: number;
  syncing: boolean;
  /** A new console version took over this tab's worker: reload to use it. */
  updated: boolean;
}

export const status: OfflineStatus = {
  online: navigator.onLine,
  asOf: null,
  waiting: 0,
  attention: 0,
  syncing: false,
  updated: false,
};
const changes = changeSignal();

export function set(patch: Partial<OfflineStatus>): void {
  Object.assign(status, patch);
  changes.notify();
}

/** The field app's state; the component re-renders when it changes. */
export function useOffline(): OfflineStatus {
  changes.useSignal();
  return status;
}
