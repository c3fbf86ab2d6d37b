/**
 * Kysely's SQLite dialect over two connections: the writer and a query-only reader (sqlite-adapter.ts).
 *
 * - A transaction (and a `db.connection()` block once it writes or begins one) holds the writer, alone,
 *   from BEGIN to its end; transactions begin IMMEDIATE, taking the database's write lock at BEGIN, where
 *   the busy timeout waits for it. (A deferred transaction that reads and then writes cannot wait: SQLite
 *   answers "database is locked" at once when another process committed in between, and its read could be
 *   stale, a lost update.)
 * - A statement outside a transaction that only reads (a SELECT) runs on the reader at once, without
 *   waiting for a write transaction in progress: in WAL mode it sees everything committed when it starts.
 *   `node:sqlite` runs each statement to completion synchronously, so a request's own earlier write has
 *   committed before its next read starts: read-your-writes holds.
 * - Every other statement (writes, DDL, pragmas, raw SQL not starting with SELECT) takes the writer.
 */
import {
  CompiledQuery,
  createQueryId,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  IdentifierNode,
  type QueryCompiler,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
} from 'kysely';
import { isReadOnlyStatement, runOn } from './sqlite-direct.ts';

/** A FIFO lock: the writer serves one holder at a time, in the order they asked. */
class WriterLock {
  #tail: Promise<void> = Promise.resolve();
  async acquire(): Promise<() => void> {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = this.#tail;
    this.#tail = before.then(() => held);
    await before;
    return release;
  }
}

/** One Kysely "connection": reads go to the reader until it writes; from then on it holds the writer. */
class RoutedConnection implements DatabaseConnection {
  readonly #driver: RoutingSqliteDriver;
  #releaseWriter: (() => void) | null = null;
  constructor(driver: RoutingSqliteDriver) {
    this.#driver = driver;
  }

  async holdWriter(): Promise<void> {
    this.#releaseWriter ??= await this.#driver.lock.acquire();
  }

  release(): void {
    this.#releaseWriter?.();
    this.#releaseWriter = null;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.#releaseWriter && isReadOnlyStatement(query)) {
      return runOn<R>(this.#driver.reader, query);
    }
    await this.holdWriter();
    return runOn<R>(this.#driver.writer, query);
  }

  // Streams keep their statement open between rows: on the writer, as before the reader existed.
  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only select queries');
    await this.holdWriter();
    for (const row of this.#driver.writer.prepare(query.sql).iterate(query.parameters)) {
      yield { rows: [row as R] };
    }
  }
}

class RoutingSqliteDriver implements Driver {
  readonly writer: SqliteDatabase;
  readonly reader: SqliteDatabase;
  readonly lock = new WriterLock();
  // Released connections are reused: Kysely wraps each new connection object (its query log hook).
  readonly #idle: RoutedConnection[] = [];
  constructor(writer: SqliteDatabase, reader: SqliteDatabase) {
    this.writer = writer;
    this.reader = reader;
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#idle.pop() ?? new RoutedConnection(this);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).holdWriter();
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await connection.executeQuery(compile(savepointCommand('savepoint', name), createQueryId()));
  }
  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await connection.executeQuery(compile(savepointCommand('rollback to', name), createQueryId()));
  }
  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await connection.executeQuery(compile(savepointCommand('release', name), createQueryId()));
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as RoutedConnection).release();
    if (this.#idle.length < 100) this.#idle.push(connection as RoutedConnection);
  }
  async destroy(): Promise<void> {
    this.reader.close();
    this.writer.close();
  }
}

function savepointCommand(command: string, name: string): RawNode {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
}

/**
 * SQLite's adapter, but with "several connections": Kysely then leaves the locking to the driver, which
 * holds the writer only for what needs it instead of one lock around every query.
 */
class RoutingSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

export class RoutingSqliteDialect extends SqliteDialect {
  readonly #writer: SqliteDatabase;
  readonly #reader: SqliteDatabase;
  constructor(connections: { writer: SqliteDatabase; reader: SqliteDatabase }) {
    super({ database: connections.writer });
    this.#writer = connections.writer;
    this.#reader = connections.reader;
  }
  override createDriver(): Driver {
    return new RoutingSqliteDriver(this.#writer, this.#reader);
  }
  override createAdapter(): DialectAdapter {
    return new RoutingSqliteAdapter();
  }
}
