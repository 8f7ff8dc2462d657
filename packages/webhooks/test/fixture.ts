// The package tests' shared set-up (issue 34): a test database (PGlite, or PostgreSQL with
// DATABASE_URL) with one engine migrated on it, loopback allowed, for the whole file; workers with
// the file's defaults, stopped after each test with whatever else the test opened; a fresh tenant per
// test. Register it at the top of a test file: `const fx = useEngine({ … })`, then
// `beforeEach(fx.fresh)` and `afterEach(fx.cleanup)` in the describe blocks that deliver.
import { after, before } from 'node:test';
import type { Sql } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import {
  DeliveryWorker,
  type DeliveryWorkerOptions,
  parseAllowList,
  Webhooks,
  type WebhooksOptions,
} from '../src/index.js';

/** Loopback, the only network the tests use. */
export const LOOPBACK = parseAllowList('127.0.0.1/32');

export interface EngineFixtureOptions {
  /** The test database's pool size and the like (createTestDatabase). */
  database?: Parameters<typeof createTestDatabase>[0];
  /** Engine options over the defaults (allowHttp, the loopback allow-list); `now` for a test clock. */
  engine?: Partial<Omit<WebhooksOptions, 'sql' | 'schema'>>;
  /** Worker options over the defaults (no LISTEN, 2 s attempts, the loopback guard). */
  worker?: Partial<DeliveryWorkerOptions>;
  /** Each test's tenant is this and a number. @default 't' */
  tenantPrefix?: string;
}

export interface EngineFixture {
  /** Set once the file's `before` ran. */
  readonly db: TestDatabase;
  readonly webhooks: Webhooks;
  /** This test's tenant (`fresh` makes the next one). */
  readonly tenant: string;
  /** A table of the test schema, quoted for SQL: `fx.table('webhook_deliveries')`. */
  table(name: string): string;
  /** A worker on the engine, with the file's defaults and `options` over them; stopped by `cleanup`. */
  worker(options?: Partial<DeliveryWorkerOptions>): DeliveryWorker;
  /**
   * A worker as `worker` makes, on an engine of its own over `sql` (the test database behind a
   * fault-injecting wrapper, say) and the same schema; stopped by `cleanup`.
   */
  workerOn(sql: Sql, options?: Partial<DeliveryWorkerOptions>): DeliveryWorker;
  /** Something `cleanup` closes (after the workers, the last opened first). */
  closeLater<T extends { close(): Promise<unknown> }>(resource: T): T;
  /** A new tenant for the next test (a `beforeEach`); returns it. */
  fresh(): string;
  /** Stops the test's workers, closes what it opened, fails what it left pending (an `afterEach`). */
  cleanup(): Promise<void>;
}

export function useEngine(options: EngineFixtureOptions = {}): EngineFixture {
  let db: TestDatabase | undefined;
  let webhooks: Webhooks | undefined;
  let tenantN = 0;
  let tenant = '';
  const workers: DeliveryWorker[] = [];
  const closers: { close(): Promise<unknown> }[] = [];
  const prefix = options.tenantPrefix ?? 't';

  before(async () => {
    db = await createTestDatabase(options.database);
    webhooks = new Webhooks({
      sql: db.sql,
      schema: db.schema,
      allowHttp: true,
      allowList: LOOPBACK,
      ...options.engine,
    });
    await webhooks.migrate();
  });
  after(() => db?.close());

  const fx: EngineFixture = {
    get db() {
      if (!db) throw new Error("the fixture is set up in the file's before hook");
      return db;
    },
    get webhooks() {
      if (!webhooks) throw new Error("the fixture is set up in the file's before hook");
      return webhooks;
    },
    get tenant() {
      return tenant;
    },
    table: (name) => `"${fx.db.schema}".${name}`,
    worker(workerOptions = {}) {
      return fx.workerOn(fx.db.sql, workerOptions);
    },
    workerOn(sql, workerOptions = {}) {
      const engine =
        sql === fx.db.sql
          ? fx.webhooks
          : new Webhooks({
              sql,
              schema: fx.db.schema,
              allowHttp: true,
              allowList: LOOPBACK,
              ...options.engine,
            });
      const w = new DeliveryWorker({
        webhooks: engine,
        listen: false,
        timeoutMs: 2000,
        guard: { allowList: LOOPBACK, allowHttp: true },
        ...options.worker,
        ...workerOptions,
      });
      workers.push(w);
      return w;
    },
    closeLater(resource) {
      closers.push(resource);
      return resource;
    },
    fresh() {
      tenant = `${prefix}${++tenantN}`;
      return tenant;
    },
    async cleanup() {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      for (const c of closers.splice(0).reverse()) await c.close();
      await fx.db.sql.query(
        `update ${fx.table('webhook_deliveries')} set status = 'failed' where status = 'pending'`,
      );
    },
  };
  return fx;
}
