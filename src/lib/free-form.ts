/**
 * Free-form JSON members (settings, fields, state, data, params, geometry, result…): objects whose
 * members may be anything. Each one nests at most 32 levels and takes at most 64 KiB as JSON, so a
 * device or an agent cannot store a value that later breaks every read that includes it. Schemas
 * need not say so: markFreeForm finds them when a validator is compiled (REST and MCP alike). A member a
 * PATCH merges into (settings, fields) is capped again as stored: mergedFreeFormJson, in
 * src/calls/input-rules.ts.
 */
export const FREE_FORM_LIMITS = {
  /** Nesting of one free-form member, counting its own object as level 1. */
  depth: 32,
  /** One free-form member's size as JSON, in UTF-8 bytes. */
  bytes: 65_536,
} as const;

/** The schema keyword that marks a free-form member (added by markFreeForm, checked by makeAjv). */
export const FREE_FORM_KEYWORD = 'x-free-form';

/**
 * Nesting of a parsed value (a scalar is 0, `{}` is 1), without recursion; it stops counting once past
 * `limit` (the answer is then more than `limit`, not the whole depth).
 */
export function valueDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v !== 'object' || v === null) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, here]);
  }
  return deepest;
}

/** What is wrong with a free-form member's value (too deep, too large), or null. */
export function freeFormProblem(value: unknown): string | null {
  if (valueDepth(value, FREE_FORM_LIMITS.depth) > FREE_FORM_LIMITS.depth) {
    return `nests deeper than ${FREE_FORM_LIMITS.depth} levels`;
  }
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
  if (bytes > FREE_FORM_LIMITS.bytes) {
    return `is ${bytes.toLocaleString('en')} bytes as JSON; the most is ${FREE_FORM_LIMITS.bytes.toLocaleString('en')}`;
  }
  return null;
}

type JsonSchema = Record<string, unknown>;

/**
 * `Type.Record(Type.String(), Type.Unknown())` (members may be anything), or an object that takes
 * unknown members as they come (`additionalProperties: true`, like farm settings).
 */
function isFreeForm(node: JsonSchema): boolean {
  if (node.type !== 'object') return false;
  if (node.additionalProperties === true) return true;
  const patterns = node.patternProperties as JsonSchema | undefined;
  if (!patterns || node.properties) return false;
  const values = Object.values(patterns);
  return values.length === 1 && Object.keys(values[0] as JsonSchema).length === 0;
}

/**
 * A copy of a JSON Schema with every free-form member marked for the free-form keyword, so each one
 * is capped wherever it is declared (new ones included) without the schema files saying so.
 */
export function markFreeForm<T>(schema: T): T {
  const mark = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(mark);
    if (typeof value !== 'object' || value === null) return value;
    const out: JsonSchema = {};
    for (const [key, child] of Object.entries(value)) out[key] = mark(child);
    if (isFreeForm(out)) out[FREE_FORM_KEYWORD] = true;
    return out;
  };
  return mark(schema) as T;
}
