// The growth benchmark's plans step (run.ts): EXPLAIN (ANALYZE, BUFFERS) of the claim statements and
// their neighbours on the large tables, custom and generic plans checked for sequential scans.
import type { Sql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { pickParams, webhooksInternals } from '@surety/webhooks/testing';
import pg from 'pg';
import { NO_CAPS, whSchemas } from './claims.js';
import { keyOf } from './load.js';

/** The plans as markdown, and the sequential scans of large tables found in them. */
export async function plans(
  url: string,
  sql: Sql,
  schemas: Record<'small' | 'large', string>,
): Promise<{ markdown: string; seqScans: string[] }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  // An array parameter as an array literal: String([]) is '', which PostgreSQL refuses for text[].
  const lit = (v: unknown): string =>
    v === null
      ? 'null'
      : Array.isArray(v)
        ? c.escapeLiteral(`{${v.map((x) => `"${String(x).replace(/["\\]/g, '\\$&')}"`).join(',')}}`)
        : c.escapeLiteral(String(v));
  const now = new Date().toISOString();
  const idem = createIdempotency({ sql, schema: schemas.large });
  const wh = new Webhooks({
    sql,
    schema: whSchemas.large,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  const ist = (await import('../../packages/idempotency/src/statements.js')).statements(schemas.large);
  const stored = keyOf(12345);
  // The claim's parameters: the key's lock id and that of its former quoted form, two scalars since
  // session 18 (the lock itself is taken by the statement before it, `claimLock`; unset here, the
  // claim reads `locked` as false).
  const claimParams = (key: string) => [idem.lockId('bench', key), idem.lockId('bench', `"${key}"`)];
  // The completed row's insert, as the engine sends it with COMMIT.
  const record = ist.completeAtCommit(
    {
      tenant: 'bench',
      key: 'new-key',
      fingerprint: 'f',
      status: 201,
      headers: '{"content-type":"application/json"}',
      body: '{}',
      bodyGzip: null,
      bodyEncoding: null,
      createdAt: now,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      lockId: idem.lockId('bench', 'new-key'),
    },
    false,
  );
  // [label, statement, parameters, settings the product runs it with]
  const cases: [string, { text: string }, unknown[], string?][] = [
    // As the adapters send it: the key's lock id, and with it that of its former quoted form.
    ['idempotency claim, stored key', ist.claim, claimParams(stored)],
    ['idempotency claim, new key', ist.claim, claimParams('new-key')],
    ['idempotency record at COMMIT (insert of the completed row)', record.statement, [...record.params]],
    ['idempotency purge (one batch of 200, the first of a call)', ist.purge, [now, 200, '-infinity']],
    [
      'delivery claim (batch of 50, 1 M pending)',
      webhooksInternals(wh).st.claim,
      pickParams([now, 50, new Date(Date.now() + 60_000).toISOString(), 'explain', ...NO_CAPS]),
      webhooksInternals(wh).st.claimSettings,
    ],
  ];
  const md: string[] = [];
  const seqScans: string[] = [];
  for (const [label, st, params, settings] of cases) {
    const plan: Record<string, string> = {};
    for (const mode of ['auto', 'force_generic_plan'] as const) {
      await c.query('begin');
      await c.query(`set local plan_cache_mode = ${mode}`);
      if (settings) await c.query(settings.replace(/set local plan_cache_mode = \w+;?/, ''));
      await c.query(`prepare bench_plan as ${st.text}`);
      const { rows } = await c.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers${mode === 'force_generic_plan' ? '' : ''}) execute bench_plan${params.length ? `(${params.map(lit).join(', ')})` : ''}`,
      );
      await c.query('rollback');
      await c.query('deallocate all');
      plan[mode] = rows.map((r) => r['QUERY PLAN']).join('\n');
      // A sequential scan of a tiny table (the endpoints: one row here) is the right plan; one over a
      // table the planner expects to be large is what must not happen on a hot path.
      for (const m of plan[mode]!.matchAll(/Seq Scan on (\w+)[^\n]*?rows=(\d+)/g))
        if (Number(m[2]) >= 10_000)
          seqScans.push(`${label}: ${m[1]} (${mode === 'auto' ? 'custom plan' : 'generic plan only'})`);
    }
    md.push(
      `#### ${label}`,
      '',
      '```text',
      plan['auto']!,
      '```',
      '',
      /Seq Scan on \w+[^\n]*?rows=\d{5,}/.test(plan['force_generic_plan']!)
        ? `The generic plan (\`plan_cache_mode = force_generic_plan\`: what a named prepared statement could switch to after 5 executions) scans a large table sequentially:\n\n\`\`\`text\n${plan['force_generic_plan']}\n\`\`\`\n`
        : 'The generic plan (`plan_cache_mode = force_generic_plan`) scans no large table sequentially either.\n',
    );
  }
  await c.end();
  return { markdown: md.join('\n'), seqScans };
}
