/**
 * Device commands described as data. One description drives validation here, the JSON Schema that
 * MCP tools and OpenAPI show, and the catalog, so the three can never disagree.
 */

export type ParamType =
  /** A finite number. */
  | 'number'
  /** A whole number. */
  | 'integer'
  /** One of `enum`, matched exactly. */
  | 'enum'
  /** `HH:MM` from 00:00 to 23:59, or one of `keywords` (such as `dawn`). */
  | 'time'
  /** A non-empty list of distinct `HH:MM` times. */
  | 'times'
  /** A non-empty list of distinct whole numbers from `min` to `max`, or the word `all` when `all` is set. */
  | 'integers'
  /** The id of another record (non-empty string); whether it exists is the caller's check. */
  | 'id';

export interface ParamSpec {
  readonly name: string;
  readonly type: ParamType;
  readonly required: boolean;
  readonly description: string;
  readonly enum?: readonly string[];
  /** Inclusive bounds; for `integers` they bound each item. */
  readonly min?: number;
  readonly max?: number;
  /** Exclusive bounds, for values such as "greater than 0" or "below 360". */
  readonly exclusiveMin?: number;
  readonly exclusiveMax?: number;
  /** Words a `time` accepts besides `HH:MM`. */
  readonly keywords?: readonly string[];
  /** `integers` only: the string `all` is accepted in place of a list. */
  readonly all?: boolean;
  /** What one item of an `integers` list is called in messages ("door", "panel"). */
  readonly item?: string;
  /**
   * A number's unit as the catalog writes units (`°C`, `kg`, `mm`, `m/day`): the unit the API takes and
   * stores it in. The console shows and takes it in the reader's units (°F, lb, in) and sends this one.
   */
  readonly unit?: string;
  /** Stored in the command's params when the caller leaves the parameter out. */
  readonly default?: number | string;
}

export interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly params: readonly ParamSpec[];
  /** At least one of these parameters must be given. */
  readonly atLeastOneOf?: readonly string[];
  /** At most one of these parameters may be given. */
  readonly atMostOneOf?: readonly string[];
  /** Advice for clients (and agents) before sending the command. */
  readonly caution?: string;
  /** When a person must confirm the command first (`always`, or only `after_dark` at the farm). */
  readonly confirm?: 'always' | 'after_dark';
}

/** The value a parameter holds after validation, by its declared type. */
type ParamValue<P extends ParamSpec> = P['type'] extends 'number' | 'integer'
  ? number
  : P['type'] extends 'enum'
    ? P extends { enum: readonly (infer E)[] }
      ? E
      : string
    : P['type'] extends 'time' | 'id'
      ? string
      : P['type'] extends 'times'
        ? string[]
        : P extends { all: true }
          ? number[] | 'all'
          : number[];

/** The validated params of a command declared `as const`: required ones present, the rest optional. */
export type ParamsOf<S extends CommandSpec> = {
  [P in S['params'][number] as P['required'] extends true ? P['name'] : never]: ParamValue<P>;
} & {
  [P in S['params'][number] as P['required'] extends true ? never : P['name']]?: ParamValue<P>;
};

export type CommandValidation =
  | { ok: true; params: Record<string, unknown> }
  | { ok: false; param: string; message: string };

type Checked = { ok: true; value: unknown } | { ok: false; param: string; message: string };

const TIME_PATTERN = /^(?:[01][0-9]|2[0-3]):[0-5][0-9]$/;
const TIME_PATTERN_SOURCE = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

export function isTimeOfDay(value: unknown): value is string {
  return typeof value === 'string' && TIME_PATTERN.test(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? typeof value;
}

function listWords(words: readonly string[]): string {
  return words.join(', ');
}

/**
 * Finds `command` among `specs` and validates its params. `kind` names the device kind in the
 * unknown-command message ("house", "tag device").
 */
export function validateCommandFrom(
  specs: readonly CommandSpec[],
  kind: string,
  command: unknown,
  params: unknown,
): CommandValidation {
  const spec = typeof command === 'string' ? specs.find((s) => s.name === command) : undefined;
  if (!spec) {
    return {
      ok: false,
      param: 'command',
      message:
        `Unknown ${kind} command ${show(command)}. ` +
        `Valid commands: ${listWords(specs.map((s) => s.name))}.`,
    };
  }
  return validateCommandParams(spec, params);
}

/**
 * Validates params against one command. Returns a fresh object with only the declared parameters,
 * in declaration order, with defaults filled in, so what is stored is exactly what was checked.
 * Absent or null params count as `{}` since commands without parameters are usually sent bare.
 */
export function validateCommandParams(spec: CommandSpec, params: unknown): CommandValidation {
  const input = params === undefined || params === null ? {} : params;
  if (!isPlainObject(input)) {
    return { ok: false, param: 'params', message: `params of ${spec.name} must be an object.` };
  }

  for (const key of Object.keys(input)) {
    if (!spec.params.some((p) => p.name === key)) {
      const allowed =
        spec.params.length === 0
          ? `${spec.name} takes no parameters.`
          : `Its parameters: ${listWords(spec.params.map((p) => p.name))}.`;
      return {
        ok: false,
        param: `params.${key}`,
        message: `${spec.name} has no parameter "${key}". ${allowed}`,
      };
    }
  }

  const out: Record<string, unknown> = {};
  for (const p of spec.params) {
    const path = `params.${p.name}`;
    const raw = input[p.name];
    if (raw === undefined) {
      if (p.required) {
        return { ok: false, param: path, message: `${spec.name} needs ${p.name}: ${p.description}` };
      }
      if (p.default !== undefined) out[p.name] = p.default;
      continue;
    }
    const checked = checkParam(p, raw, path);
    if (!checked.ok) return checked;
    out[p.name] = checked.value;
  }

  if (spec.atLeastOneOf && !spec.atLeastOneOf.some((name) => input[name] !== undefined)) {
    return {
      ok: false,
      param: 'params',
      message: `${spec.name} needs at least one of: ${listWords(spec.atLeastOneOf)}.`,
    };
  }
  if (spec.atMostOneOf) {
    const present = spec.atMostOneOf.filter((name) => input[name] !== undefined);
    const second = present[1];
    if (second !== undefined) {
      return {
        ok: false,
        param: `params.${second}`,
        message: `${spec.name} takes only one of ${listWords(spec.atMostOneOf)}, not ${listWords(present)} together.`,
      };
    }
  }
  return { ok: true, params: out };
}

function checkParam(p: ParamSpec, value: unknown, path: string): Checked {
  const fail = (message: string): Checked => ({ ok: false, param: path, message });
  switch (p.type) {
    case 'number':
    case 'integer': {
      const whole = p.type === 'integer';
      if (typeof value !== 'number' || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
        return fail(`${p.name} must be ${whole ? 'a whole number' : 'a number'}; got ${show(value)}.`);
      }
      const range = rangeProblem(p, value);
      return range ? fail(`${p.name} ${range}; got ${value}.`) : { ok: true, value };
    }
    case 'enum': {
      const options = p.enum ?? [];
      if (typeof value !== 'string' || !options.includes(value)) {
        return fail(`${p.name} must be one of ${listWords(options)}; got ${show(value)}.`);
      }
      return { ok: true, value };
    }
    case 'time': {
      const words = p.keywords ?? [];
      if (isTimeOfDay(value) || (typeof value === 'string' && words.includes(value)))
        return { ok: true, value };
      const alt = words.length > 0 ? ` or ${words.join(' or ')}` : '';
      return fail(`${p.name} must be a time HH:MM from 00:00 to 23:59${alt}; got ${show(value)}.`);
    }
    case 'times': {
      if (!Array.isArray(value) || value.length === 0) {
        return fail(`${p.name} must be a non-empty list of times HH:MM; got ${show(value)}.`);
      }
      const seen = new Set<string>();
      for (const [i, t] of value.entries()) {
        if (!isTimeOfDay(t)) {
          return {
            ok: false,
            param: `${path}[${i}]`,
            message: `${p.name}[${i}] must be a time HH:MM from 00:00 to 23:59; got ${show(t)}.`,
          };
        }
        if (seen.has(t)) {
          return { ok: false, param: `${path}[${i}]`, message: `${p.name} lists ${t} more than once.` };
        }
        seen.add(t);
      }
      return { ok: true, value: [...value] };
    }
    case 'integers': {
      const noun = p.item ?? 'item';
      const span = `${p.min ?? '-∞'} to ${p.max ?? '∞'}`;
      if (p.all && value === 'all') return { ok: true, value: 'all' };
      if (!Array.isArray(value) || value.length === 0) {
        const expected = `${p.all ? '"all" or ' : ''}a non-empty list of ${noun} numbers ${span}`;
        return fail(`${p.name} must be ${expected}; got ${show(value)}.`);
      }
      const seen = new Set<number>();
      for (const [i, n] of value.entries()) {
        const itemPath = `${path}[${i}]`;
        if (typeof n !== 'number' || !Number.isInteger(n) || rangeProblem(p, n)) {
          return {
            ok: false,
            param: itemPath,
            message: `${noun} numbers are whole numbers from ${span}; got ${show(n)}.`,
          };
        }
        if (seen.has(n)) {
          return { ok: false, param: itemPath, message: `${noun} ${n} is listed more than once.` };
        }
        seen.add(n);
      }
      return { ok: true, value: [...value] };
    }
    case 'id': {
      if (typeof value !== 'string' || value.trim() === '') {
        return fail(`${p.name} must be a non-empty id string; got ${show(value)}.`);
      }
      return { ok: true, value };
    }
  }
}

/** Describes how `value` misses the bounds of `p`, or null when it is within them. */
function rangeProblem(p: ParamSpec, value: number): string | null {
  if (p.min !== undefined && value < p.min) return `must be at least ${p.min}`;
  if (p.max !== undefined && value > p.max) return `must be at most ${p.max}`;
  if (p.exclusiveMin !== undefined && value <= p.exclusiveMin)
    return `must be greater than ${p.exclusiveMin}`;
  if (p.exclusiveMax !== undefined && value >= p.exclusiveMax) return `must be less than ${p.exclusiveMax}`;
  return null;
}

export type JsonSchema = { [key: string]: unknown };

/** JSON Schema (2020-12, valid inside OpenAPI 3.1 and MCP tool schemas) for one command's params. */
export function paramsJsonSchema(spec: CommandSpec): JsonSchema {
  const properties: JsonSchema = {};
  for (const p of spec.params) properties[p.name] = paramJsonSchema(p);
  const schema: JsonSchema = { type: 'object', properties, additionalProperties: false };
  const required = spec.params.filter((p) => p.required).map((p) => p.name);
  if (required.length > 0) schema.required = required;
  if (spec.atLeastOneOf) {
    // Each branch repeats its property so generated clients type it (a bare `required` reads as unknown).
    schema.anyOf = spec.atLeastOneOf.map((name) => ({
      required: [name],
      properties: { [name]: properties[name] },
    }));
  }
  if (spec.atMostOneOf) {
    // "With this one, none of the others": said per member, so every name used is a declared property.
    const names = spec.atMostOneOf;
    schema.dependentSchemas = Object.fromEntries(
      names.map((name) => [
        name,
        { properties: Object.fromEntries(names.filter((other) => other !== name).map((n) => [n, false])) },
      ]),
    );
  }
  return schema;
}

function numberBounds(p: ParamSpec): JsonSchema {
  const b: JsonSchema = {};
  if (p.min !== undefined) b.minimum = p.min;
  if (p.max !== undefined) b.maximum = p.max;
  if (p.exclusiveMin !== undefined) b.exclusiveMinimum = p.exclusiveMin;
  if (p.exclusiveMax !== undefined) b.exclusiveMaximum = p.exclusiveMax;
  return b;
}

function paramJsonSchema(p: ParamSpec): JsonSchema {
  const meta: JsonSchema = { description: p.description };
  if (p.default !== undefined) meta.default = p.default;
  const timeString = { type: 'string', pattern: TIME_PATTERN_SOURCE };
  switch (p.type) {
    case 'number':
    case 'integer':
      return { type: p.type, ...numberBounds(p), ...meta };
    case 'enum':
      return { type: 'string', enum: [...(p.enum ?? [])], ...meta };
    case 'time':
      return p.keywords && p.keywords.length > 0
        ? { anyOf: [timeString, { type: 'string', enum: [...p.keywords] }], ...meta }
        : { ...timeString, ...meta };
    case 'times':
      return { type: 'array', items: timeString, minItems: 1, uniqueItems: true, ...meta };
    case 'integers': {
      const list = {
        type: 'array',
        items: { type: 'integer', ...numberBounds(p) },
        minItems: 1,
        uniqueItems: true,
      };
      return p.all ? { anyOf: [{ type: 'string', const: 'all' }, list], ...meta } : { ...list, ...meta };
    }
    case 'id':
      return { type: 'string', minLength: 1, ...meta };
  }
}
