import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

/**
 * Kysely over an embedded PGlite, for kysely 0.28 (its own PGlite dialect came with 0.29, which requires Node 22).
 * PGlite has one session, so there is one connection. A transaction runs inside PGlite's own `transaction()`,
 * which holds the instance for its whole length: another handle on a shared instance (see pglite-schema.ts) waits
 * instead of landing in it. Streaming is not supported.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;

  constructor(private readonly pglite: PGlite) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {
    await this.pglite.waitReady;
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(this.connection);
  }

  beginTransaction(): Promise<void> {
    return this.connection.begin();
  }

  commitTransaction(): Promise<void> {
    return this.connection.finish(true);
  }

  rollbackTransaction(): Promise<void> {
    return this.connection.finish(false);
  }

  releaseConnection(): Promise<void> {
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

/** An open PGlite transaction: the handle queries go to, and how it ends. */
interface OpenTransaction {
  tx: Transaction;
  /** Ends the transaction callback: commit (true) or roll back (false). */
  end: (commit: boolean) => void;
  /** Settles when PGlite has committed or rolled back. */
  closed: Promise<void>;
}

class PGliteConnection implements DatabaseConnection {
  private open: OpenTransaction | undefined;

  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const target = this.open?.tx ?? this.pglite;
    const result = await target.query<R>(compiled.sql, [...compiled.parameters], { rowMode: 'object' });
    return {
      rows: result.rows,
      ...(result.affectedRows === undefined ? {} : { numAffectedRows: BigInt(result.affectedRows) }),
    };
  }

  /** Streaming is part of the interface; PGlite returns whole results only. */
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming is not supported by PGlite.');
  }

  /** Starts PGlite's transaction and keeps it open until {@link finish}. */
  async begin(): Promise<void> {
    let started!: (tx: Transaction) => void;
    const began = new Promise<Transaction>((resolve) => (started = resolve));
    let end!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (end = resolve));
    const closed = this.pglite.transaction(async (tx) => {
      started(tx);
      if (!(await decided)) await tx.rollback();
    });
    // A transaction that could not begin rejects `closed` before it has started.
    const tx = await Promise.race([
      began,
      closed.then(() => Promise.reject(new Error('PGlite transaction ended before it began'))),
    ]);
    this.open = { tx, end, closed };
  }

  /** Commits or rolls back the open transaction and waits until PGlite has. */
  async finish(commit: boolean): Promise<void> {
    const open = this.open;
    this.open = undefined;
    if (!open) return;
    open.end(commit);
    await open.closed;
  }
}
