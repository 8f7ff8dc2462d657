// One round trip for several statements with parameters on node-postgres (BEGIN with a
// transaction's `first` statements, an `atCommit` statement with COMMIT): pg.ts uses it.
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { classifyPg } from './pooler.js';
import type { Statement } from './types.js';

// node-postgres has no pipelining API, but its Query writes the extended protocol's messages itself
// and already collects several results (as for a multi-statement simple query). Pipelined writes
// several statements with parameters (Parse once per connection for a named one, Bind, Describe,
// Execute each) before one Sync, in one corked write: one round trip, and named statements keep
// their cached plans. The results are one per statement, in order. BEGIN with the `first`
// statements (and those `before` it), and the `atCommit` statement with COMMIT, go out this way.
// Which named statements the connection holds is node-postgres' `parsedStatements`, kept here (the
// Query itself has no name, so node-postgres marks nothing): the server answers each Parse in
// order, and one that fails skips the rest until Sync, so each ParseComplete received while this
// query is the client's active one names the next statement now on the connection. The active
// query, not the callback, says when this query's answers end: after a client-side `query_timeout`
// the callback has failed, but the server's answers, ParseCompletes included, still arrive.
interface PgQueryInternals {
  submit(connection: PgConnectionInternals): Error | null;
  handleError(error: Error, connection: PgConnectionInternals): void;
  handleReadyForQuery(connection: PgConnectionInternals): void;
}
interface PgConnectionInternals {
  _send(buffer: Buffer): boolean;
  stream: { writable: boolean; write(buffer: Buffer): boolean };
  parse(query: { text: string; name?: string }): void;
  bind(config: object): void;
  execute(config: object): void;
  describe(config: { type: 'P'; name: string }): void;
  sync(): void;
  on(event: 'parseComplete', listener: () => void): void;
  removeListener(event: 'parseComplete', listener: () => void): void;
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements?: Record<string, string | undefined>;
}
interface PgClientInternals {
  _getActiveQuery?(): unknown;
  activeQuery?: unknown;
}
const PgQuery = pg.Query as unknown as new (
  config: pg.QueryConfig & {
    queryMode: 'extended';
    callback: (error: Error | null, results?: unknown) => void;
  },
) => PgQueryInternals;
export interface Step {
  statement: Statement;
  params: readonly unknown[];
}
class Pipelined extends PgQuery {
  readonly #steps: readonly Step[];
  readonly #client: PgClientInternals;
  /** The Parse messages sent, in order: the named one's name and text, undefined for an unnamed one. */
  readonly #parses: ({ name: string; text: string } | undefined)[] = [];
  /** Each step's values, mapped before anything is written (submit). */
  #values: unknown[][] = [];
  #parseCompletes = 0;
  #connection: PgConnectionInternals | undefined;
  readonly #parsed = () => {
    if (!this.#active()) return;
    const parse = this.#parses[this.#parseCompletes++];
    if (parse && this.#connection) this.#connection.parsedStatements[parse.name] = parse.text;
  };
  constructor(
    client: pg.PoolClient,
    steps: readonly Step[],
    callback: (error: Error | null, results?: unknown) => void,
  ) {
    super({ text: steps.map((s) => s.statement.text).join(';\n'), queryMode: 'extended', callback });
    this.#client = client as unknown as PgClientInternals;
    this.#steps = steps;
  }
  #active(): boolean {
    const client = this.#client;
    return (
      (typeof client._getActiveQuery === 'function' ? client._getActiveQuery() : client.activeQuery) === this
    );
  }
  override submit(connection: PgConnectionInternals): Error | null {
    // node-postgres' own check of a named query, for each statement here, before anything is
    // written: a name the connection holds for another text is refused, as node-postgres refuses it
    // (bound, it would run the other text).
    const texts = new Map<string, string>();
    for (const { statement } of this.#steps) {
      const { name, text } = statement;
      if (!name) continue;
      const previous =
        connection.parsedStatements[name] ?? connection.submittedNamedStatements?.[name] ?? texts.get(name);
      if (previous !== undefined && previous !== text) {
        return new Error(`Prepared statements must be unique - '${name}' was used for a different statement`);
      }
      texts.set(name, text);
    }
    // A value that cannot be mapped (a circular object) fails here, with nothing sent: thrown while
    // the messages were being written, it left the server waiting for the rest of them, and the
    // connection (its transaction, its locks) hung.
    try {
      this.#values = this.#steps.map((s) => s.params.map((v) => pgUtils.prepareValue(v)));
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    return super.submit(connection);
  }
  prepare(connection: PgConnectionInternals): void {
    this.#connection = connection;
    connection.on('parseComplete', this.#parsed);
    // One buffer for the whole pipeline: node-postgres writes each message as a buffer of its own
    // (corked, one writev), and the stream's bookkeeping per buffer cost ~1.3 µs each, ~14 µs for a
    // pipeline of 11 messages against ~5 µs for one concatenated write (docs/benchmarks.md). Its
    // `_send` is shadowed while the messages are serialised, then the prototype's is back.
    const chunks: Buffer[] = [];
    connection._send = (buffer: Buffer) => chunks.push(buffer) > 0;
    try {
      this.#serialise(connection);
    } finally {
      delete (connection as Partial<PgConnectionInternals>)._send;
    }
    if (connection.stream.writable) connection.stream.write(Buffer.concat(chunks));
  }
  #serialise(connection: PgConnectionInternals): void {
    const sent = new Set<string>();
    this.#steps.forEach(({ statement }, i) => {
      const { name, text } = statement;
      if (!name) {
        connection.parse({ text });
        this.#parses.push(undefined);
      } else if (
        connection.parsedStatements[name] === undefined &&
        connection.submittedNamedStatements?.[name] === undefined &&
        !sent.has(name)
      ) {
        connection.parse({ text, name });
        this.#parses.push({ name, text });
        sent.add(name);
      }
      connection.bind({ statement: name ?? '', values: this.#values[i] });
      // Described, so that rows, if any, arrive as a result of their own; BEGIN and COMMIT answer
      // no rows (a result ends at its CommandComplete either way).
      if (!NO_ROWS.has(statement)) connection.describe({ type: 'P', name: '' });
      connection.execute({});
    });
    connection.sync();
  }
  /** Stops counting once this query's answers have ended (not after a client-side timeout). */
  #settle(connection: PgConnectionInternals): void {
    if (!this.#active()) connection.removeListener('parseComplete', this.#parsed);
  }
  override handleError(error: Error, connection: PgConnectionInternals): void {
    this.#settle(connection);
    super.handleError(error, connection);
  }
  override handleReadyForQuery(connection: PgConnectionInternals): void {
    this.#settle(connection);
    super.handleReadyForQuery(connection);
  }
}

/** Runs `steps` in one round trip on `client`; one result per step. */
export function pipeline(client: pg.PoolClient, steps: readonly Step[]): Promise<pg.QueryResult[]> {
  // A submittable query answers through its callback, not a promise.
  return new Promise<pg.QueryResult[]>((resolve, reject) => {
    const query = new Pipelined(client, steps, (error, got) => {
      if (error) reject(classifyPg(error));
      else resolve(Array.isArray(got) ? (got as pg.QueryResult[]) : [got as pg.QueryResult]);
    });
    client.query(query as unknown as pg.QueryConfig);
  });
}

// Named, so parsed once per connection: unnamed, the server parsed both on every transaction.
export const BEGIN: Statement = { name: 'surety_begin', text: 'BEGIN' };
export const COMMIT: Statement = { name: 'surety_commit', text: 'COMMIT' };
// Behind a transaction pooler (pooler.ts): the same, parsed on every transaction.
export const UNNAMED_BEGIN: Statement = { text: 'BEGIN' };
export const UNNAMED_COMMIT: Statement = { text: 'COMMIT' };
const NO_ROWS = new Set([BEGIN, COMMIT, UNNAMED_BEGIN, UNNAMED_COMMIT]);
