/**
 * The PostgreSQL driver (`pg`), loaded when a PostgreSQL database is first opened: a server on SQLite (the
 * default) never holds it. Its type parsers are set once, before any connection is made; `openPool` makes the
 * pool the service's database runs on.
 */
import type pg from 'pg';
import { nameStatementsOn } from './named-statements.ts';
import { pipelineBeginOn } from './pg-pipeline.ts';

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

/**
 * The service's connection pool: in pipeline mode, its hot statements named (named-statements.ts) and a
 * transaction's BEGIN sent with its first statement (pg-pipeline.ts). `onError` hears a connection lost
 * while idle or during a query: an idle connection closed by the server (restart, failover, admin kill) must
 * not crash the process (the pool drops it and opens a new one on the next query), and pg emits 'error' on a
 * client whose connection breaks during a query (which that query reports) as well.
 */
export async function openPool(url: string, max: number, onError: (err: Error) => void): Promise<pg.Pool> {
  const driver = await loadPg();
  const pool = new driver.Pool({ connectionString: url, max, pipeline: true });
  pool.on('error', onError);
  pool.on('connect', (client) => {
    client.on('error', onError);
    nameStatementsOn(client);
    pipelineBeginOn(client);
  });
  return pool;
}
