import { AsyncLocalStorage } from 'node:async_hooks';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { NestedTransactionError } from './errors.js';
import type { Tx } from './types.js';

// Surety owns the transaction, Prisma writes in it: a driver adapter (@prisma/adapter-pg's own, so
// Prisma's type mapping is unchanged) over a "pool" whose every statement goes to the node-postgres
// connection under the Surety transaction that `onSurety(tx, fn)` is running. Prisma's own
// transactions (a nested write, `$transaction`) become SAVEPOINTs on it; they never COMMIT early.

const current = new AsyncLocalStorage<pg.PoolClient>();

function clientOf(tx: Tx): pg.PoolClient {
  if (tx.driver.kind !== 'pg') {
    throw new TypeError(
      `Prisma on a Surety transaction needs node-postgres (createPgSql / openSql with a URL), not ${tx.driver.kind}; ` +
        'on other backends let Prisma own the transaction (prismaSql)',
    );
  }
  return tx.driver.client;
}

const active = (): pg.PoolClient => {
  const client = current.getStore();
  if (!client) {
    throw new TypeError(
      'this PrismaClient writes only inside a Surety transaction: run it in onSurety(tx, () => prisma.…)',
    );
  }
  return client;
};

type Config = pg.QueryConfig & { text: string };

// Prisma's transaction control (adapter-pg sends BEGIN, COMMIT and ROLLBACK as statements on the
// connection it took from the pool), rewritten as a savepoint of the Surety transaction.
function savepointConnection(client: pg.PoolClient, name: string) {
  const translate = (text: string): string => {
    const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase();
    if (verb === 'BEGIN') return `SAVEPOINT ${name}`;
    if (verb === 'COMMIT') return `RELEASE SAVEPOINT ${name}`;
    if (verb === 'ROLLBACK' && !/^\s*rollback\s+to\b/i.test(text)) {
      return `ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`;
    }
    // An isolation level cannot change inside a transaction; saying so beats PostgreSQL's 25001.
    if (verb === 'SET' && /^\s*set\s+transaction\b/i.test(text)) throw new NestedTransactionError(text);
    return text;
  };
  return {
    query(config: Config | string) {
      if (typeof config === 'string') return client.query(translate(config));
      const text = translate(config.text);
      // Two statements (ROLLBACK TO; RELEASE) go through the simple protocol, without parameters.
      return text === config.text ? client.query(config) : client.query(text);
    },
    on() {},
    removeListener() {},
    release() {},
  };
}

class SuretyPool extends pg.Pool {
  #savepoints = 0;
  override query(config: unknown, values?: unknown): never {
    return active().query(config as Config, values as unknown[]) as never;
  }
  override connect(): never {
    return Promise.resolve(savepointConnection(active(), `surety_prisma_${++this.#savepoints}`)) as never;
  }
  override async end(): Promise<void> {}
}

/**
 * A Prisma driver adapter (@prisma/adapter-pg) whose statements run on the Surety transaction
 * given to `onSurety(tx, fn)`: create one PrismaClient with it, once, and write with Prisma's typed
 * API inside idempotent handlers. Prisma's nested writes and `$transaction` are SAVEPOINTs there.
 * Needs the node-postgres backend (`createPgSql`, `openSql` with a URL).
 * @example
 * const prismaOnSurety = new PrismaClient({ adapter: prismaAdapterOnSurety() });
 * await engine.execute(request, (tx) =>
 *   onSurety(tx, async () => {
 *     const order = await prismaOnSurety.order.create({ data: { note } });
 *     return { status: 201, headers: {}, body: JSON.stringify(order) };
 *   }),
 * );
 */
export function prismaAdapterOnSurety(options: { schema?: string } = {}): PrismaPg {
  return new PrismaPg(new SuretyPool({ max: 1 }), options.schema ? { schema: options.schema } : undefined);
}

/**
 * Runs `fn` with the PrismaClients of {@link prismaAdapterOnSurety} writing in Surety's transaction
 * `tx`. `fn` may return a Prisma call unawaited (`onSurety(tx, () => prisma.order.count())`).
 */
export function onSurety<T>(tx: Tx, fn: () => PromiseLike<T>): Promise<T> {
  // A PrismaPromise is lazy: it sends nothing until `.then()` is called. Returned unawaited, it
  // would start when the caller awaits it, after `run` has left the context, and find no
  // transaction. Awaiting it here starts it inside.
  return current.run(clientOf(tx), async () => await fn());
}
