/**
 * PostgreSQL: a transaction's BEGIN travels with its first statement. The pool's connections run in `pg`'s
 * pipeline mode (a query is written at once, not after the one before is answered; each still ends with its
 * own Sync, so a failure stays the failing query's). Kysely awaits BEGIN before the transaction's first
 * statement, which costs a round trip that carries nothing. Here BEGIN is written and answered at once, and
 * the connection's next query, written right behind it, waits for both answers: when BEGIN failed, that
 * query fails with BEGIN's error (it would have run outside a transaction). A group of device reports thus
 * costs three round trips instead of four (group-commit.ts).
 *
 * Everything else keeps its order and its answers: in pipeline mode `pg` still answers queries in the order
 * they were written, and the code awaits each one before the next as it did before.
 */
import type pg from 'pg';

/** What Kysely's PostgreSQL driver sends to begin a transaction (without an isolation level). */
const BEGIN = 'begin';

/**
 * A group of device reports' transaction runs its named statements on their generic plans (group-commit.ts
 * says why). Sent right behind BEGIN, and answered at once as BEGIN is.
 */
export const GENERIC_PLANS = 'set local plan_cache_mode = force_generic_plan';

/**
 * Wraps a new connection's `query` so that BEGIN (and GENERIC_PLANS behind it) is answered at once and checked
 * with the next query. Only the promise form is taken over (Kysely's: the text and an empty parameter list); a
 * call with a callback (pg-pool's own `pool.query`) passes through untouched.
 */
export function pipelineBeginOn(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let begun: Promise<unknown> | null = null;
  (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const answeredAtOnce =
      (text === BEGIN || text === GENERIC_PLANS) &&
      (args.length === 1 || (args.length === 2 && Array.isArray(values) && values.length === 0));
    if (answeredAtOnce) {
      const sent = query(text) as Promise<unknown>;
      // Its failure is reported by the next query; until then nothing may call it unhandled.
      sent.catch(() => {});
      const before = begun;
      begun = before ? before.then(() => sent) : sent;
      begun.catch(() => {});
      const command = text === BEGIN ? 'BEGIN' : 'SET';
      return Promise.resolve({ command, rowCount: null, rows: [], fields: [] });
    }
    const before = begun;
    begun = null;
    const result = query(...args);
    if (!before || !(result instanceof Promise)) return result;
    // Written already: the answers come in order, BEGIN's first.
    result.catch(() => {});
    return before.then(() => result);
  };
}
