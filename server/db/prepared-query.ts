import type { Compilable } from 'kysely';
import type { Db } from './index.js';

/** What stands in for a value while a prepared statement is built: the name of the value it will be. */
class Placeholder {
  constructor(readonly key: string) {}
}

/** Where a parameter of a prepared statement comes from: a value of each run, or a constant of the statement. */
type Slot = { key: string } | { constant: string | number | boolean | null };

/** A statement prepared by {@link preparedQuery}: its SQL text and where each of its parameters comes from. */
export interface PreparedForm {
  sql: string;
  slots: readonly Slot[];
}

/**
 * A statement on a hot path, written with kysely and prepared once. The first run has kysely build and compile
 * it with a placeholder for each of `values`; every run then puts the values in place and sends that SQL text
 * as a named prepared statement ({@link Db.prepared}). Neither kysely's building and compiling (tens of µs for a
 * statement with a few CTEs) nor PostgreSQL's parsing and planning is done again.
 *
 * `build` gives the same statement whatever the values: a value may only be passed where kysely makes it a
 * parameter, never read (`values.x ? … : …`, `JSON.stringify(values.x)`) or spread into the statement's shape
 * (an `in` list). Derive such values before the run and pass the result. A constant other than a string, a
 * number, a boolean or null is refused when the statement is prepared: a `new Date()` written in `build` would
 * otherwise be frozen at its first run. test/db/prepared-query.test.ts checks each prepared statement of the
 * service against what kysely compiles from the same values.
 */
export function preparedQuery<V extends Record<string, unknown>, R>(
  db: Db,
  name: string,
  build: (values: V) => Compilable<R>,
): PreparedQuery<V, R> {
  let form: PreparedForm | undefined;
  const run = async (values: V): Promise<R[]> => {
    form ??= prepare(name, build);
    const parameters = form.slots.map((slot) => ('key' in slot ? values[slot.key] : slot.constant));
    return db.prepared<R>(name, form.sql, parameters);
  };
  return Object.assign(run, {
    form: (): PreparedForm => (form ??= prepare(name, build)),
    compiled: (values: V) => build(values).compile(),
  });
}

/** A prepared statement: run it with its values; `form` and `compiled` are what its test compares. */
export interface PreparedQuery<V, R> {
  (values: V): Promise<R[]>;
  /** The SQL text and the parameters' sources, as the first run prepares them. */
  form(): PreparedForm;
  /** What kysely compiles from these values (the statement unprepared). */
  compiled(values: V): { sql: string; parameters: readonly unknown[] };
}

function prepare<V extends Record<string, unknown>>(
  name: string,
  build: (values: V) => Compilable<unknown>,
): PreparedForm {
  const placeholders = new Proxy({} as V, {
    get: (_, key) => (typeof key === 'string' ? new Placeholder(key) : undefined),
  });
  const { sql, parameters } = build(placeholders).compile();
  const slots = parameters.map((parameter, at): Slot => {
    if (parameter instanceof Placeholder) return { key: parameter.key };
    if (
      parameter === null ||
      typeof parameter === 'string' ||
      typeof parameter === 'number' ||
      typeof parameter === 'boolean'
    )
      return { constant: parameter };
    throw new TypeError(
      `prepared statement ${name}: parameter $${at + 1} is a constant ${Object.prototype.toString.call(parameter)}; ` +
        'pass it as a value',
    );
  });
  return { sql, slots };
}
