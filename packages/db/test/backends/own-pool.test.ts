// Bring your own pool: createPgSql({ pool }) opens its LISTEN and NOTIFY connections with that pool's
// own settings. The pool here is built from separate host / port / user / database options, with no
// connection string, as an application that already has one usually builds it. PostgreSQL only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { ownConnectionSettings } from '../../src/own-connection.js';
import { createPgSql } from '../../src/pg.js';
import { directOnly, needsPostgres, postgresUrl } from '../../src/testing.js';
import type { Sql } from '../../src/types.js';

/** A pool made from the URL's parts, the way an application with its own config builds one. */
function poolFromParts(url: string): pg.Pool {
  const u = new URL(url);
  return new pg.Pool({
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    database: decodeURIComponent(u.pathname.slice(1)),
    max: 2,
  });
}

describe('ownConnectionSettings', () => {
  test("copies the pool's settings, with the password pg-pool hides from enumeration", () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: 5999, user: 'u', password: 's3cret', database: 'd' });
    const settings = ownConnectionSettings(pool);
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.port, 5999);
    assert.equal(settings.user, 'u');
    assert.equal(settings.database, 'd');
    assert.equal(settings.password, 's3cret');
    assert.equal(Object.keys({ ...pool.options }).includes('password'), false, 'pg-pool hides it');
  });
});

describe('a pool of your own (no connection string)', { skip: needsPostgres || directOnly }, () => {
  let pool: pg.Pool;
  let sql: Sql;
  const errors: Error[] = [];
  before(() => {
    pool = poolFromParts(postgresUrl!);
    sql = createPgSql({ pool, onError: (e) => errors.push(e) });
  });
  after(async () => {
    await sql.close();
    await pool.end();
  });

  test('listen() connects with the pool’s settings and hears a NOTIFY sent through the pool', async () => {
    const channel = `own_pool_${process.pid}`;
    const heard: string[] = [];
    const unlisten = await sql.listen(channel, (p) => heard.push(p));
    try {
      // Sent through the pool itself: the listener is on the same database, not merely connected.
      await pool.query('select pg_notify($1, $2)', [channel, 'via pool']);
      await sql.notify(channel, 'via notify');
      const deadline = Date.now() + 5000;
      while (heard.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(heard.sort(), ['via notify', 'via pool']);
    } finally {
      await unlisten();
    }
    assert.deepEqual(errors, []);
  });

  test('notify() uses a connection of its own, not one of the pool (never queued behind it)', async () => {
    const channel = `own_pool_busy_${process.pid}`;
    const heard: string[] = [];
    const unlisten = await sql.listen(channel, (p) => heard.push(p));
    const held = await Promise.all([pool.connect(), pool.connect()]); // max: 2, both taken
    try {
      await sql.notify(channel, 'while busy');
      const deadline = Date.now() + 5000;
      while (heard.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(heard, ['while busy']);
    } finally {
      for (const c of held) c.release();
      await unlisten();
    }
  });
});
