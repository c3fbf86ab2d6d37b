/**
 * Device state merging: a report's `state` is merged into the stored state, objects key by key
 * (recursively), other values (numbers, strings, arrays) replaced, and `null` removing a key.
 */
import { isPlainObject } from '../../lib/json.ts';

/** Largest stored state, as JSON text: state only grows by merging, so it needs a ceiling. */
export const MAX_STATE_BYTES = 64 * 1024;

/** Sets a key as plain data, even `__proto__`, which plain assignment would treat as the prototype. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `patch` merged into `base`; neither input is changed. */
export function mergeState(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) put(out, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
      continue;
    }
    if (isPlainObject(value)) {
      const current = Object.hasOwn(out, key) ? out[key] : undefined;
      put(out, key, mergeState(isPlainObject(current) ? current : {}, value));
      continue;
    }
    put(out, key, value);
  }
  return out;
}
