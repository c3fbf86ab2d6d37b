/**
 * Statements built once. Kysely builds an operation tree and compiles it to SQL text on every execution;
 * for the statements every device report runs, that costs more on SQLite than running them (BENCHMARKS.md,
 * "Performance round 3"). `prepared(build)` returns a function that builds and compiles its statement once
 * per engine and shape, and from then on only puts the arguments in place.
 *
 * The builder gets its arguments as placeholders: it may put them wherever a value goes, but must not look
 * at them, except for what makes a statement's shape, which it sees as given: array lengths, booleans,
 * null and undefined (a statement for two subjects is another statement than for one). Other values
 * (strings, numbers, dates) are the placeholders; the shape never depends on them. Each engine's SQL is
 * cached apart; no Kysely plugin is in use, so one engine's compiler gives one text per shape. On
 * PostgreSQL each text also goes to the server as a named prepared statement (named-statements.ts).
 *
 * That contract is checked, not only written: with `checkPreparedBuilders()` on (the tests turn it on in
 * test/harness.ts), every call builds its statement a second time, from its real arguments, and fails when
 * that gives another SQL text or other parameters than the statement built once: a builder that looked at
 * a value (an `if` on a string, a number written into the text) is caught the first time a test's value
 * takes the other branch.
 *
 * A statement whose shape follows its data (a multi-row insert, by row count and by which of its rows'
 * columns are null) could have very many shapes, so each statement keeps at most MAX_SHAPES of them: a new
 * shape past that replaces the oldest, which is simply built again should it come back.
 */

import { isDeepStrictEqual } from 'node:util';
import type { Compilable, CompiledQuery } from 'kysely';
import { engineOf } from './engine.ts';
import { executeNamed, type NamedStatement, namedStatement } from './named-statements.ts';
import type { Db } from './schema.ts';

type Path = ReadonlyArray<string | number>;

/** Where an argument goes: its path in the arguments. */
class Slot {
  readonly path: Path;
  constructor(path: Path) {
    this.path = path;
  }
}

/** A plain object (arrays are taken apart before this is asked). */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The statement's shape: arrays by length, booleans, null and undefined by value, other leaves as `_`. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(shapeOf).join(',')}]`;
  if (isRecord(value)) {
    let shape = '{';
    for (const key in value) shape += `${key}:${shapeOf(value[key])},`;
    return `${shape}}`;
  }
  if (value === null || value === undefined || typeof value === 'boolean') return String(value);
  return '_';
}

/** The arguments with every placeholder-able leaf replaced by its slot. */
function placeholders(value: unknown, path: Path): unknown {
  if (Array.isArray(value)) return value.map((v, i) => placeholders(v, [...path, i]));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const key in value) out[key] = placeholders(value[key], [...path, key]);
    return out;
  }
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  return new Slot(path);
}

function valueAt(args: unknown, path: Path): unknown {
  let value = args;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

type Getter = (args: unknown) => unknown;
type Step = string | number;

/** Reads one argument: the common short paths without a loop. */
function getter(path: Path): Getter {
  const [a, b] = path as [Step, Step];
  if (path.length === 1) return (args) => (args as Record<Step, unknown>)[a];
  if (path.length === 2) return (args) => ((args as Record<Step, unknown>)[a] as Record<Step, unknown>)[b];
  return (args) => valueAt(args, path);
}

/** The statement's parameters from a call's arguments: per parameter its argument, or the builder's constant. */
function binder(parameters: readonly unknown[]): (args: unknown) => unknown[] {
  const getters: Getter[] = parameters.map((p) => {
    if (p instanceof Slot) return getter(p.path);
    return () => p;
  });
  return (args) => {
    const values = new Array<unknown>(getters.length);
    for (let i = 0; i < getters.length; i++) values[i] = (getters[i] as Getter)(args);
    return values;
  };
}

/** Shapes kept per statement and engine (see above). */
export const MAX_SHAPES = 64;

interface Plan<R> {
  compiled: NamedStatement<R>;
  /** The statement's parameters from a call's arguments. */
  bind: (args: unknown) => unknown[];
}

let checking = false;

/** From now on every call of a prepared statement also checks its builder (see above), or no longer: for tests. */
export function checkPreparedBuilders(on = true): void {
  checking = on;
}

/** The check: the statement built from the call's own values must be the one built once. */
function checkBuilder<A, R>(
  build: (db: Db, args: A) => Compilable<R>,
  db: Db,
  args: A,
  planned: CompiledQuery<R>,
  parameters: unknown[],
): void {
  const direct = build(db, args).compile();
  if (direct.sql !== planned.sql || !isDeepStrictEqual(direct.parameters, parameters)) {
    throw new Error(
      `prepared(): the builder looked at a value, not only the shape: built once it gave\n${planned.sql}\n` +
        `and from this call's values\n${direct.sql}\n(parameters ${JSON.stringify(parameters)} and ` +
        `${JSON.stringify(direct.parameters)})`,
    );
  }
}

/**
 * A statement compiled once per engine and shape. `build` must be pure: the same shape always gives the
 * same statement (it runs once per shape, with placeholders for the values).
 */
export function prepared<A, R>(build: (db: Db, args: A) => Compilable<R>): (db: Db, args: A) => Promise<R[]> {
  const plans = { sqlite: new Map<string, Plan<R>>(), postgres: new Map<string, Plan<R>>() };
  return (db, args) => {
    const cache = plans[engineOf(db)];
    const shape = shapeOf(args);
    let plan = cache.get(shape);
    if (!plan) {
      const compiled = namedStatement(db, build(db, placeholders(args, []) as A).compile());
      plan = { compiled, bind: binder(compiled.parameters) };
      if (cache.size >= MAX_SHAPES) cache.delete(cache.keys().next().value as string);
      cache.set(shape, plan);
    }
    const parameters = plan.bind(args);
    if (checking) {
      try {
        checkBuilder(build, db, args, plan.compiled, parameters);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const { query, queryId, sql } = plan.compiled;
    const statement = { query, queryId, sql, parameters } as unknown as NamedStatement<R>;
    return executeNamed<R>(db, statement).then((result) => result.rows);
  };
}
