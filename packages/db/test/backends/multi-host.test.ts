import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDatabaseUnavailableError } from '../../src/errors.js';
import { parseMultiHostUrl } from '../../src/multi-host.js';
import { createPgSql } from '../../src/pg.js';
import { directOnly, needsPostgres, postgresUrl } from '../../src/testing.js';

test('parseMultiHostUrl: the hosts, and the URL with the first one (target_session_attrs dropped)', () => {
  assert.equal(parseMultiHostUrl('postgres://u@h1:5433/db'), undefined);
  assert.deepEqual(
    parseMultiHostUrl('postgres://u:p%40ss@h1:5433,h2/db?target_session_attrs=read-write&sslmode=disable'),
    {
      hosts: [
        { host: 'h1', port: 5433 },
        { host: 'h2', port: 5432 },
      ],
      connectionString: 'postgres://u:p%40ss@h1:5433/db?sslmode=disable',
    },
  );
  assert.deepEqual(parseMultiHostUrl('postgresql://[::1]:5432,[::1]:5433/db?target_session_attrs=primary'), {
    hosts: [
      { host: '::1', port: 5432 },
      { host: '::1', port: 5433 },
    ],
    connectionString: 'postgresql://[::1]:5432/db',
  });
});

test('parseMultiHostUrl refuses what it cannot honour', () => {
  assert.throws(() => parseMultiHostUrl('postgres://h1,h2/db?target_session_attrs=read-only'), /read-write/);
  assert.throws(() => parseMultiHostUrl('postgres://h1:99999,h2/db'), /out of range/);
  assert.throws(() => parseMultiHostUrl('postgres://h1:x,h2/db'), /host\[:port\]/);
});

test('several hosts: a dead one is skipped, the read-write one is used', {
  skip: needsPostgres || directOnly,
}, async () => {
  const url = new URL(postgresUrl!);
  const multi = postgresUrl!.replace(url.host, `127.0.0.1:1,${url.host}`);
  const sql = createPgSql({
    connectionString: `${multi}${url.search ? '&' : '?'}target_session_attrs=read-write`,
  });
  try {
    const r = await sql.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
    assert.equal(r.rows[0]!.standby, false);
    assert.equal(
      await sql.transaction(async (tx) => (await tx.query<{ n: number }>('select 2 as n')).rows[0]!.n),
      2,
    );
    const heard: string[] = [];
    const stop = await sql.listen('surety_multi_host', (p) => heard.push(p));
    await sql.notify('surety_multi_host', 'hello');
    const deadline = Date.now() + 5000;
    while (heard.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await stop();
    assert.deepEqual(heard, ['hello']);
  } finally {
    await sql.close();
  }
});

test('no host answers: unavailable (a 503), naming what each host said', async () => {
  const sql = createPgSql({
    connectionString: 'postgres://u@127.0.0.1:1,127.0.0.1:2/db?target_session_attrs=read-write',
    connectionTimeoutMillis: 2000,
  });
  try {
    await assert.rejects(sql.query('select 1'), (error: Error) => {
      assert.ok(isDatabaseUnavailableError(error), String(error));
      assert.match(error.message, /127\.0\.0\.1:1.*127\.0\.0\.1:2/);
      return true;
    });
  } finally {
    await sql.close();
  }
});
