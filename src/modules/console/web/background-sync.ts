/**
 * Background Sync (Chromium's): asks the service worker to send the queue when the network returns, also with
 * no console open. The worker sends it with queue-send.ts, as the page does.
 */
import { SYNC_TAG_PREFIX } from './queue-send.ts';

/** Registers the person's sync tag; where the browser has no Background Sync, nothing happens. */
export async function requestBackgroundSync(person: string | null): Promise<void> {
  try {
    const registration = (await navigator.serviceWorker?.ready) as
      | (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } })
      | undefined;
    if (person) await registration?.sync?.register(`${SYNC_TAG_PREFIX}${person}`);
  } catch {
    // Not there, or refused: the app syncs on `online`, on start and from the button anyway.
  }
}
