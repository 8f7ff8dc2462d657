// LISTEN survives its connection breaking (a restart, a failover, pg_terminate_backend): it is
// opened again, and notifications sent after that arrive. Before, the listener stayed deaf until
// the process restarted (the workers fell back to their poll).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createPgSql } from '../../src/pg.js';
import { needsPostgres, poolerOptions, postgresUrl } from '../../src/testing.js';

test('a LISTEN connection that is terminated is opened again, and hears what follows', {
  skip: needsPostgres,
}, async () => {
  const app = `surety-listen-${randomBytes(4).toString('hex')}`;
  const errors: Error[] = [];
  const sql = createPgSql({
    connectionString: postgresUrl!,
    applicationName: app,
    max: 2,
    onError: (e) => errors.push(e),
    ...poolerOptions,
  });
  const channel = `surety_relisten_${randomBytes(4).toString('hex')}`;
  const heard: string[] = [];
  const stop = await sql.listen(channel, (p) => heard.push(p));
  try {
    await sql.notify(channel, 'before');
    const killed = await sql.query<{ n: string }>(
      `select count(*)::text as n from (select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1) t`,
      [`${app}:listen`],
    );
    assert.equal(killed.rows[0]!.n, '1', 'the LISTEN backend was terminated');
    const deadline = Date.now() + 15_000;
    while (!heard.includes('after') && Date.now() < deadline) {
      await sql.notify(channel, 'after');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(heard.includes('before'));
    assert.ok(heard.includes('after'), `heard ${JSON.stringify(heard)} (errors: ${errors.join('; ')})`);
  } finally {
    await stop();
    await sql.close();
  }
});
