/**
 * Schema compilers (Ajv validators, fast-json-stringify serializers) run on first use, not at start-up.
 * Compiling every route's and MCP tool's schemas up front was about half the CPU of starting the service
 * (~0.9 s of ~1.9 s), while most of them are never needed by a given process (a test app, a CLI run, a
 * worker) and the rest cost a few milliseconds each on their first request. `compilePending()` compiles what
 * has not been compiled yet: a test calls it on a built app, so a schema a compiler refuses still fails the
 * suite rather than a request.
 */
const pending = new Set<() => unknown>();

/** `compile` run once, on the first call of the returned function. */
export function lazily<T>(compile: () => T): () => T {
  let value: { compiled: T } | null = null;
  const get = (): T => {
    if (!value) {
      value = { compiled: compile() };
      pending.delete(get);
    }
    return value.compiled;
  };
  pending.add(get);
  return get;
}

/** Compiles everything handed out lazily and not used yet; returns how many there were. */
export function compilePending(): number {
  const waiting = [...pending];
  for (const get of waiting) get();
  return waiting.length;
}
