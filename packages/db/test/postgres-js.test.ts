// @surety/db/postgres-js in both directions, through the shared table (orm-scenarios.ts), and
// postgres.js' own nested transactions (savepoints) inside Surety's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { pgErrorInfo } from '@surety/db';
import { createTestDatabase, needsPostgres, postgresUrl } from '@surety/db/testing';
import { Idempotency, type IdempotencyRequest, type Outcome } from '@surety/idempotency';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import postgres from 'postgres';
import { postgresBegin, postgresOf, postgresSql, postgresTx } from '../src/postgres-js.js';
import { afterTheWrite, created, type OrmContext, ormScenarios, publishCreated } from './orm-scenarios.js';

const connect = () => postgres(postgresUrl!, { max: 12, onnotice: () => {} });

ormScenarios('postgres.js', {
  'postgres.js owns each transaction (postgresSql, postgresOf)': async (ctx: OrmContext) => {
    const pgjs = connect();
    const sql = postgresSql(pgjs);
    const engine = ctx.engine.using(sql);
    const insert = (trx: postgres.TransactionSql, note: string) =>
      trx.unsafe(`insert into ${ctx.table} (note) values ($1)`, [note]);
    return {
      run: ({ key, note, fail, pause, status }) =>
        engine.execute({ tenant: ctx.tenant, key, fingerprint: note }, async (tx) => {
          await insert(postgresOf(tx), note);
          await publishCreated(ctx, tx, note);
          await pause?.();
          if (fail) throw afterTheWrite();
          return created(note, status);
        }),
      receive: ({ id, note, fail }) =>
        sql.transaction((tx) =>
          ctx.inbox.receive(tx, { id }, async () => {
            await insert(postgresOf(tx), note);
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => pgjs.end(),
    };
  },
  'inside a transaction postgres.js opened (sql.begin, postgresTx)': async (ctx: OrmContext) => {
    const pgjs = connect();
    const insert = (trx: postgres.TransactionSql, note: string) =>
      trx.unsafe(`insert into ${ctx.table} (note) values ($1)`, [note]);
    return {
      run: ({ key, note, fail, pause, status }) =>
        postgresBegin(pgjs, (trx, joined) =>
          ctx.engine.using(joined).execute({ tenant: ctx.tenant, key, fingerprint: note }, async () => {
            await insert(trx, note);
            await publishCreated(ctx, joined, note);
            await pause?.();
            if (fail) throw afterTheWrite();
            return created(note, status);
          }),
        ),
      receive: ({ id, note, fail }) =>
        postgresBegin(pgjs, (trx, joined) =>
          ctx.inbox.receive(joined, { id }, async () => {
            await insert(trx, note);
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => pgjs.end(),
    };
  },
});

test('postgres.js: its savepoint() inside Surety’s transaction nests, never commits early', {
  skip: needsPostgres,
}, async () => {
  const pgjs = connect();
  const sql = postgresSql(pgjs);
  const table = `surety_pgjs_${randomUUID().slice(0, 8)}`;
  try {
    await sql.query(`create table ${table} (note text)`);
    await assert.rejects(
      sql.transaction(async (tx) => {
        const trx = postgresOf(tx);
        await trx.unsafe(`insert into ${table} values ('outer')`);
        await trx.savepoint((sp) => sp.unsafe(`insert into ${table} values ('inner')`));
        // From another connection nothing is visible yet: the savepoint did not commit.
        assert.equal((await pgjs.unsafe(`select * from ${table}`)).length, 0);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal((await pgjs.unsafe(`select * from ${table}`)).length, 0);
  } finally {
    await pgjs.unsafe(`drop table if exists ${table}`);
    await pgjs.end();
  }
});

test('postgres.js: a joined transaction refuses atCommit and listen with a coded error', {
  skip: needsPostgres,
}, async () => {
  const pgjs = connect();
  try {
    await pgjs.begin(async (trx) => {
      const joined = postgresTx(trx);
      assert.throws(() => joined.atCommit('select 1'), { code: 'SURETY_DB_TRANSACTION_OWNED' });
      await assert.rejects(
        joined.listen('x', () => {}),
        { code: 'SURETY_DB_TRANSACTION_OWNED' },
      );
    });
  } finally {
    await pgjs.end();
  }
});

test('postgres.js: transforms that rename columns are refused at creation', () => {
  const pgjs = postgres('postgres://127.0.0.1:1/none', { transform: postgres.camel });
  assert.throws(() => postgresSql(pgjs), /without a `transform` option/);
});

test('postgres.js: pgErrorInfo reads a unique violation’s SQLSTATE, table and constraint (the engine’s claim race)', {
  skip: needsPostgres,
}, async () => {
  const pgjs = connect();
  const sql = postgresSql(pgjs);
  const table = `surety_pgjs_${randomUUID().slice(0, 8)}`;
  try {
    await sql.query(`create table ${table} (id int primary key)`);
    await sql.query(`insert into ${table} values (1)`);
    const error = await sql.query(`insert into ${table} values ($1)`, [1]).catch((e: unknown) => e);
    const info = pgErrorInfo(error);
    assert.equal(info?.code, '23505');
    assert.equal(info?.table, table);
    assert.equal(info?.constraint, `${table}_pkey`);
  } finally {
    await pgjs.unsafe(`drop table if exists ${table}`);
    await pgjs.end();
  }
});

test('postgres.js: a replay answers with the headers the atomic record stored at COMMIT', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const pgjs = connect();
  try {
    await new Idempotency({ sql: db.sql, schema: db.schema }).migrate();
    const engine = new Idempotency({ sql: postgresSql(pgjs), schema: db.schema });
    const response = {
      status: 201,
      headers: { 'content-type': 'application/json', 'x-order': '7' },
      body: '{"ok":true}',
    };
    const twice = async (run: (request: IdempotencyRequest) => Promise<Outcome>) => {
      const request = { tenant: 'pgjs', key: randomUUID(), fingerprint: 'f' };
      assert.equal((await run(request)).kind, 'executed');
      const again = await run(request);
      assert.equal(again.kind, 'replayed');
      assert.deepEqual('response' in again && again.response.headers, response.headers);
    };
    // Surety's transaction (postgresSql), and one postgres.js opened (postgresBegin).
    await twice((request) => engine.execute(request, async () => response));
    await twice((request) =>
      postgresBegin(pgjs, (_trx, joined) => engine.using(joined).execute(request, async () => response)),
    );
    // Stored as a JSON object, as node-postgres and PGlite store it, not as a JSON string.
    const { rows } = await db.sql.query<{ t: string }>(
      `select distinct jsonb_typeof(headers) as t from "${db.schema}".idempotency_keys`,
    );
    assert.deepEqual(rows, [{ t: 'object' }]);
  } finally {
    await pgjs.end();
    await db.close();
  }
});

test('postgres.js: lease mode stores the response headers as a JSON object, and a replay answers with them', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const pgjs = connect();
  try {
    await new Idempotency({ sql: db.sql, schema: db.schema }).migrate();
    const engine = new Idempotency({ sql: postgresSql(pgjs), schema: db.schema });
    const headers = { 'content-type': 'application/json', 'x-order': '8' };
    const request = { tenant: 'pgjs-lease', key: randomUUID(), fingerprint: 'f' };
    const first = await engine.acquire(request);
    assert.equal(first.kind, 'acquired');
    if (first.kind === 'acquired') await first.lease.complete({ status: 201, headers, body: '{"ok":true}' });
    const again = await engine.acquire(request);
    assert.equal(again.kind, 'replayed');
    assert.deepEqual('response' in again && again.response.headers, headers);
    const { rows } = await db.sql.query<{ t: string }>(
      `select jsonb_typeof(headers) as t from "${db.schema}".idempotency_keys where tenant = 'pgjs-lease'`,
    );
    assert.deepEqual(rows, [{ t: 'object' }]);
  } finally {
    await pgjs.end();
    await db.close();
  }
});

// postgres.js serialises a parameter the server describes as json or jsonb itself (JSON.stringify):
// the engine's JSON text given to `$n::jsonb` was stored as a JSON string, not as the value.
test('postgres.js: webhooks store secrets, headers, metadata and trace context as JSON values, not JSON strings', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const pgjs = connect();
  const contexts = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contexts);
  try {
    const options = { schema: db.schema, allowHttp: true, allowList: parseAllowList('127.0.0.1/32') };
    await new Webhooks({ sql: db.sql, ...options }).migrate();
    const sql = postgresSql(pgjs);
    const webhooks = new Webhooks({ sql, ...options });
    const tenant = 'pgjs-json';
    const app = await webhooks.createApplication(sql, { tenant, name: 'A', metadata: { plan: 'pro' } });
    assert.deepEqual(app.metadata, { plan: 'pro' });
    const { endpoint } = await webhooks.createEndpoint(sql, {
      tenant,
      url: 'http://127.0.0.1:9/in',
      eventTypes: ['*'],
      headers: { 'x-team': 'a' },
    });
    assert.deepEqual(endpoint.headers, { 'x-team': 'a' });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const span = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    });
    await context.with(span, () =>
      sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'order.created', data: { n: 1 } })),
    );
    const typeOf = async (what: string, from: string) =>
      (
        await db.sql.query<{ t: string }>(
          `select jsonb_typeof(${what}) as t from "${db.schema}".${from} where tenant = $1`,
          [tenant],
        )
      ).rows.map((r) => r.t);
    const stored = async () => ({
      metadata: await typeOf('metadata', 'webhook_applications'),
      secrets: await typeOf('secrets', 'webhook_endpoints'),
      headers: await typeOf('headers', 'webhook_endpoints'),
      traceContext: await typeOf('trace_context', 'webhook_events'),
    });
    const values = {
      metadata: ['object'],
      secrets: ['array'],
      headers: ['object'],
      traceContext: ['object'],
    };
    assert.deepEqual(await stored(), values);
    const { rows } = await db.sql.query<{ tp: string }>(
      `select trace_context->>'traceparent' as tp from "${db.schema}".webhook_events where tenant = $1`,
      [tenant],
    );
    assert.deepEqual(rows, [{ tp: traceparent }]);
    // Event data is text (untyped parameter): a string at the top level is stored as its JSON once.
    const ev = await sql.transaction((tx) =>
      webhooks.publish(tx, { tenant: 'pgjs-text', type: 'order.noted', data: '{"not":"an object"}' }),
    );
    assert.deepEqual(
      (await webhooks.getEvent(sql, { tenant: 'pgjs-text', id: ev.id }))?.data,
      '{"not":"an object"}',
    );
    // The updates' statements as well.
    const updated = await webhooks.updateEndpoint(sql, {
      tenant,
      id: endpoint.id,
      ifVersion: endpoint.version,
      patch: { headers: { 'x-team': 'b' } },
    });
    assert.deepEqual(updated?.headers, { 'x-team': 'b' });
    const app2 = await webhooks.updateApplication(sql, {
      tenant,
      id: app.id,
      ifVersion: app.version,
      patch: { metadata: { plan: 'team' } },
    });
    assert.deepEqual(app2?.metadata, { plan: 'team' });
    assert.deepEqual(await stored(), values);
  } finally {
    context.disable();
    await pgjs.end();
    await db.close();
  }
});

// The worker's own statements through postgres.js: the claim's take gets the pick's ids as an array's
// text, the completion its outcomes and attempts as jsonb text (sql/complete.ts). Either one given
// to postgres.js as a value it serialises again would store nothing, or fail the batch.
test('postgres.js: a worker claims, sends and records outcomes and attempts through it', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const pgjs = connect();
  const rx = await startReceiver(
    (_req, n, res) =>
      void (n === 1 ? res.writeHead(200).end('ok') : res.writeHead(500).end('{"a":[1,"b\\"c"]} NULL')),
  );
  try {
    const options = { schema: db.schema, allowHttp: true, allowList: parseAllowList('127.0.0.1/32') };
    await new Webhooks({ sql: db.sql, ...options }).migrate();
    const sql = postgresSql(pgjs);
    const webhooks = new Webhooks({ sql, ...options });
    const tenant = 'pgjs-worker';
    await webhooks.createEndpoint(sql, { tenant, url: rx.url, eventTypes: ['*'] });
    await sql.transaction(async (tx) => {
      for (let i = 0; i < 2; i++) await webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
    });
    const worker = new DeliveryWorker({
      webhooks,
      listen: false,
      concurrency: 1,
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    assert.equal(await worker.drain(), 2);
    await worker.stop();
    const { rows } = await db.sql.query<{ status: string; attempts: number; excerpt: string | null }>(
      `select d.status, d.attempts, a.response_excerpt as excerpt
         from "${db.schema}".webhook_deliveries d join "${db.schema}".webhook_attempts a on a.delivery_id = d.id
        where d.tenant = $1 order by a.status`,
      [tenant],
    );
    assert.deepEqual(rows, [
      { status: 'delivered', attempts: 1, excerpt: 'ok' },
      { status: 'pending', attempts: 1, excerpt: '{"a":[1,"b\\"c"]} NULL' },
    ]);
  } finally {
    await rx.close();
    await pgjs.end();
    await db.close();
  }
});
