/**
 * The one abortable wait of the background loops (workers/runner.ts, workers/delivery-loop.ts): it ends
 * after `ms`, at once when `signal` aborts, or early when the caller wakes it (a send that finished frees a
 * slot). It never rejects: a stopping loop simply sees its signal aborted.
 */
export function pause(
  ms: number,
  signal: AbortSignal,
  onWake?: (wake: (() => void) | null) => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      onWake?.(null);
      resolve();
    }
    onWake?.(done);
    signal.addEventListener('abort', done, { once: true });
  });
}
