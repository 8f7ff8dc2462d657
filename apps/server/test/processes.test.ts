// Several real server processes on one PostgreSQL: the same key sent to two at once, a SIGKILL in
// the middle of a payment's transaction, and the SIGTERM / SIGINT drains (also during start-up, and
// `surety worker`'s). PostgreSQL only (PGlite is in-process).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { runMigrations } from '../src/server.js';
import { API_KEYS, newKey, PAYMENT, postKeyed, waitForLockWait } from './helpers.js';
import { type ServerProcess, spawnServer } from './spawn.js';

let db: TestDatabase;
/** Preloaded into a child: holds the delivery worker's start (slow-worker-start.ts). */
const slowWorkerStart = new URL('./slow-worker-start.ts', import.meta.url).href;
const servers: ServerProcess[] = [];

const post = postKeyed;

describe('server processes on one PostgreSQL', { skip: needsPostgres }, () => {
  before(async () => {
    db = await createTestDatabase();
    await runMigrations(db.sql, db.schema);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    await db?.close();
  });

  const start = async () => {
    const s = await spawnServer({
      schema: db.schema,
      apiKeys: API_KEYS,
      env: { SURETY_IDEMPOTENCY_LEASE_SECONDS: '2' },
    });
    servers.push(s);
    return s;
  };
  const count = async (customerId: string) =>
    Number(
      (
        await db.sql.query<{ n: string }>(
          `select count(*)::text as n from "${db.schema}".payments where customer_id = $1`,
          [customerId],
        )
      ).rows[0]!.n,
    );

  test('the same key sent to two processes at once creates exactly one payment (20 keys)', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    for (let i = 0; i < 20; i++) {
      const key = newKey();
      const body = { ...PAYMENT, customerId: `cus_${key}` };
      const [ra, rb] = await Promise.all([post(a!.url, key, body), post(b!.url, key, body)]);
      const statuses = [ra.status, rb.status].sort();
      assert.ok(statuses[0] === 201, `statuses ${statuses}`);
      assert.ok(statuses[1] === 201 || statuses[1] === 409, `statuses ${statuses}`);
      await Promise.all([ra.text(), rb.text()]);
      assert.equal(await count(body.customerId), 1);
    }
  });

  test('SIGKILL during an open payment transaction: nothing committed, the retry creates exactly one', async () => {
    const server = await start();
    const key = newKey();
    const body = { ...PAYMENT, customerId: `cus_${key}` };
    const blocker = db.connect(1);
    try {
      await blocker.transaction(async (tx) => {
        await tx.query(`lock table "${db.schema}".payments in exclusive mode`);
        const pending = post(server.url, key, body).catch((e: unknown) => e);
        await waitForLockWait(db.sql, db.schema);
        await server.kill('SIGKILL');
        assert.ok((await pending) instanceof Error, 'the client saw the connection drop, not an answer');
      });
    } finally {
      await blocker.close();
    }
    // The backend of the killed process aborts its transaction when it finds the client gone.
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const busy = await db.sql.query(
        `select 1 from pg_stat_activity where state like 'idle in transaction%' and query ilike $1`,
        [`%${db.schema}%`],
      );
      if (busy.rows.length === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(await count(body.customerId), 0);
    // The payment runs in phases: the key's row (in progress, leased) commits before the first phase,
    // so it may be left behind, but with no phase recorded as done.
    const keyRows = await db.sql.query<{ recovery_point: string | null }>(
      `select recovery_point from "${db.schema}".idempotency_keys where key = $1`,
      [key],
    );
    assert.ok(
      keyRows.rows.every((r) => r.recovery_point === null),
      'no phase of the killed request is recorded as committed',
    );

    const restarted = await start();
    // A retry within the dead owner's lease is 409 with Retry-After; after it, the retry runs it, or
    // replays it when the restarted server's completer finished the abandoned request first.
    let retry = await post(restarted.url, key, body);
    for (let i = 0; retry.status === 409 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 500));
      retry = await post(restarted.url, key, body);
    }
    assert.equal(retry.status, 201);
    const again = await post(restarted.url, key, body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(await count(body.customerId), 1);
  });

  /** Resolves once the server's log matches `pattern` (bounded). */
  const logged = async (server: ServerProcess, pattern: RegExp, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(server.output())) {
      if (Date.now() > deadline) throw new Error(`no ${pattern} in the log:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  /**
   * Posts a payment that waits on a lock, sends `signal` (SIGTERM) once it waits (`beforeSignal`
   * first, `afterSignal` after, the lock still held), then releases the lock: the request must be
   * answered 201 and the process exit 0.
   */
  const drainOnSignal = async (
    server: ServerProcess,
    options: { signal?: NodeJS.Signals; beforeSignal?: () => void; afterSignal?: () => Promise<void> } = {},
  ) => {
    const key = newKey();
    const body = { ...PAYMENT, customerId: `cus_${key}` };
    const blocker = db.connect(1);
    let pending: Promise<Response> | undefined;
    try {
      await blocker.transaction(async (tx) => {
        await tx.query(`lock table "${db.schema}".payments in exclusive mode`);
        pending = post(server.url, key, body);
        await waitForLockWait(db.sql, db.schema);
        options.beforeSignal?.();
        server.process.kill(options.signal ?? 'SIGTERM');
        await options.afterSignal?.();
      });
    } finally {
      await blocker.close();
    }
    // The failure seen once in a full PostgreSQL run was the connection closed with no answer
    // (UND_ERR_SOCKET); the error carries the server's exit code and its log, which say why.
    const res = await pending!.catch(async (error: Error) => {
      const code = await Promise.race([
        server.exited,
        new Promise((r) => setTimeout(() => r('still running'), 5000)),
      ]);
      throw new Error(
        `${error.message} (${String(error.cause)}); server exit: ${code}; log:\n${server.output()}`,
      );
    });
    assert.equal(res.status, 201);
    assert.equal(await server.exited, 0, server.output());
    assert.equal(await count(body.customerId), 1);
  };

  test('SIGTERM finishes the in-flight request, then exits 0', async () => {
    await drainOnSignal(await start());
  });

  // The cause of the failure seen once: the server listens before its delivery worker has started
  // (the worker's LISTEN connection, slow on a loaded cluster), and the SIGTERM handler used to be
  // installed only after that; a SIGTERM in between met Node's default action and the process died
  // with the request in flight. Here the worker's start is held for 3 s to widen that window.
  test('SIGTERM while the delivery worker is still starting (the server already listening) drains too', async () => {
    const server = await spawnServer({
      schema: db.schema,
      apiKeys: API_KEYS,
      imports: [slowWorkerStart],
      env: { SLOW_WORKER_START_MS: '3000' },
    });
    servers.push(server);
    await drainOnSignal(server, {
      beforeSignal: () => {
        const log = server.output();
        assert.ok(
          log.includes('test: worker start held') && !log.includes('test: worker start released'),
          `the SIGTERM must come while the worker start is held (too slow a machine?):\n${log}`,
        );
      },
    });
  });

  // `surety worker` had the same gap: its handler came after the worker's start (a SIGTERM then
  // ended it by the signal, not with exit 0 after closing its pool).
  test('surety worker: a SIGTERM while the worker is starting waits for the start, then exits 0', async () => {
    const worker = await spawnServer({
      schema: db.schema,
      apiKeys: API_KEYS,
      command: 'worker',
      imports: [slowWorkerStart],
      env: { SLOW_WORKER_START_MS: '1000' },
      ready: /test: worker start held/,
    });
    servers.push(worker);
    worker.process.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
    assert.match(worker.output(), /delivery worker started[\s\S]*finishing attempts in flight, then exiting/);
  });

  // Ctrl-C on `npm start` reaches the whole process group, and npm forwards the SIGINT it got to
  // its child as well: the server gets two at once. They are one request to stop, not a second
  // signal's "exit at once", which lost the requests in flight.
  test('SIGINT twice within a second (a Ctrl-C under npm) drains like one', async () => {
    const server = await start();
    await drainOnSignal(server, {
      signal: 'SIGINT',
      afterSignal: async () => {
        await logged(server, /draining in-flight requests/);
        server.process.kill('SIGINT');
      },
    });
  });

  test('a second SIGTERM a second or more after the first exits 1 at once', async () => {
    const server = await start();
    const key = newKey();
    const blocker = db.connect(1);
    try {
      await blocker.transaction(async (tx) => {
        await tx.query(`lock table "${db.schema}".payments in exclusive mode`);
        const pending = post(server.url, key, { ...PAYMENT, customerId: `cus_${key}` }).catch(
          (e: Error) => e,
        );
        await waitForLockWait(db.sql, db.schema);
        server.process.kill('SIGTERM');
        await logged(server, /draining in-flight requests/);
        await new Promise((r) => setTimeout(r, 1100));
        assert.equal(server.process.exitCode, null, 'still draining: the request waits on the lock');
        server.process.kill('SIGTERM');
        assert.equal(await server.exited, 1);
        assert.ok((await pending) instanceof Error, 'the request in flight got no answer');
      });
    } finally {
      await blocker.close();
    }
  });
});
