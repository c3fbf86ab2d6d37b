/**
 * The PostgreSQL driver (`pg`), loaded when a PostgreSQL database is first opened: a server on SQLite (the
 * default) never holds it. Its type parsers are set once, before any connection is made.
 */
import type pg from 'pg';

let loaded: Promise<typeof pg> | null = null;

export function loadPg(): Promise<typeof pg> {
  loaded ??= import('pg').then(({ default: driver }) => {
    // int8 (bigint) columns hold epoch milliseconds and counts, all well inside 2^53: parse to numbers.
    driver.types.setTypeParser(driver.types.builtins.INT8, (v) => Number(v));
    driver.types.setTypeParser(driver.types.builtins.NUMERIC, (v) => Number(v));
    return driver;
  });
  return loaded;
}
