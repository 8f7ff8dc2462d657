// Running behind a transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy, Neon's pooled URL): each
// transaction may run on another server connection, so nothing may depend on session state across
// transactions. Surety keeps none but its named statements (parsed once per connection): in
// `pooler: 'transaction'` mode they go out unnamed (pg.ts), still pipelined with BEGIN and COMMIT.
// Advisory locks are all transaction-scoped (migrations, claims, partition maintenance), temporary
// tables are `on commit drop`, settings `set local`: nothing else changes. LISTEN needs a session of
// its own: on `listenUrl` (a direct connection), or the workers poll.
import type pg from 'pg';
import { classify, PoolerMisconfiguredError, sqlState } from './errors.js';
import { clientFor } from './multi-host.js';
import type { Statement } from './types.js';

/** How the connection string reaches PostgreSQL. */
export type PoolerMode = 'none' | 'transaction';

/** The setting the service reads (named in the errors, so an operator knows what to change). */
export const POOLER_SETTING = 'SURETY_DATABASE_POOLER=transaction (createPgSql({ pooler: "transaction" }))';

/** `statement` as node-postgres sends it: unnamed in transaction-pooler mode. */
export function forPooler(statement: string | Statement, mode: PoolerMode): string | Statement {
  if (mode === 'none' || typeof statement === 'string' || statement.name === undefined) return statement;
  return statement.text;
}

/**
 * The driver's error, classified (`classify`); a prepared statement missing (26000) or already there
 * (42P05) means the transaction moved to another server connection: a transaction pooler Surety was
 * not told about, reported as such rather than as a SQL error (a 500 in a service).
 */
export function classifyPg(error: unknown): unknown {
  const state = sqlState(error);
  if (state === '26000' || state === '42P05') {
    return new PoolerMisconfiguredError(
      `${(error as Error).message} (SQLSTATE ${state}): the connection is behind a transaction-mode pooler, where a statement prepared in one transaction is not on the server connection of the next; set ${POOLER_SETTING}, or connect directly / in session mode`,
      { cause: error },
    );
  }
  return classify(error);
}

/**
 * Whether the connections `settings` opens are behind a transaction (or statement) pooler: one
 * client's backend, `pg_backend_pid()`, changes between its transactions while another client holds
 * a transaction open. On a direct or session-pooled connection a client keeps its backend for life,
 * so a true answer is never wrong; a false one may be (a pooler that happened to hand the same
 * server back every time). Two connections, a few round trips; they are closed before it resolves.
 */
export async function detectTransactionPooler(settings: pg.ClientConfig): Promise<boolean> {
  const { Client, settings: config } = clientFor(settings);
  const a = new Client({ ...config, application_name: 'surety:pooler-check' });
  const b = new Client({ ...config, application_name: 'surety:pooler-check' });
  for (const c of [a, b]) c.on('error', () => {});
  const pid = async (c: pg.Client) =>
    Number((await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid);
  try {
    await a.connect();
    await b.connect();
    const seen = new Set([await pid(a)]);
    for (let round = 0; round < 3 && seen.size === 1; round++) {
      // b takes a server connection in a transaction: likely the one a just released (LIFO).
      await b.query('begin');
      await pid(b);
      seen.add(await pid(a));
      await b.query('commit');
      seen.add(await pid(a));
    }
    return seen.size > 1;
  } catch (error) {
    throw classify(error);
  } finally {
    await Promise.all([a.end().catch(() => {}), b.end().catch(() => {})]);
  }
}
