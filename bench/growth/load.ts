// Bulk loads for the growth benchmark: idempotency keys and pending deliveries, written with
// INSERT … SELECT generate_series in chunks, indexes dropped during the load and rebuilt after (as a
// restore would), then ANALYZE. A loaded schema is marked and reused by later runs: 10 million keys
// take minutes to write on this machine.
import { createHash } from 'node:crypto';
import { createPgSql, type Sql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { parseAllowList, Webhooks } from '@surety/webhooks';

const CHUNK = 500_000;

async function loaded(sql: Sql, schema: string): Promise<number | undefined> {
  const { rows } = await sql
    .query<{ n: string }>(
      `select n::text from ${schema}.bench_loaded where exists (select 1 from pg_tables where schemaname = $1 and tablename = 'bench_loaded')`,
      [schema],
    )
    .catch(() => ({ rows: [] as { n: string }[] }));
  return rows[0] ? Number(rows[0].n) : undefined;
}

async function mark(sql: Sql, schema: string, n: number) {
  await sql.query(`create table ${schema}.bench_loaded (n bigint not null)`);
  await sql.query(`insert into ${schema}.bench_loaded values ($1)`, [n]);
}

/** The key of row i, as the loader wrote it: 32 hex characters, spread like random UUIDs. */
export const keyOf = (i: number) => createHash('md5').update(`md5:${i}`).digest('hex');

/**
 * `n` completed idempotency keys of tenant "bench" (expiring in `expiresInSeconds`; negative: already
 * expired) in `schema`, keyed md5(i) so inserts and lookups spread over the whole primary key.
 */
export async function ensureKeys(
  url: string,
  schema: string,
  n: number,
  expiresInSeconds = 86_400 * 365,
  log: (s: string) => void = () => {},
  /** Spread expiry times over this many seconds before `expiresInSeconds`, in row order (as keys
   * made one after another expire); 0: every row of a chunk expires at the same instant. */
  spreadSeconds = 0,
): Promise<{ reused: boolean; seconds: number }> {
  const sql = createPgSql({ connectionString: url, max: 2 });
  try {
    if ((await loaded(sql, schema)) === n) {
      await createIdempotency({ sql, schema }).migrate(); // a schema loaded by an older version
      return { reused: true, seconds: 0 };
    }
    const started = performance.now();
    await sql.query(`drop schema if exists ${schema} cascade`);
    await createIdempotency({ sql, schema }).migrate();
    const t = `${schema}.idempotency_keys`;
    await sql.query(`alter table ${t} drop constraint idempotency_keys_pkey`);
    await sql.query(`drop index ${schema}.idempotency_keys_expires_at`);
    for (let from = 0; from < n; from += CHUNK) {
      const to = Math.min(n, from + CHUNK) - 1;
      await sql.query(
        // lock_id as the engine computes it: the first 8 bytes of sha256(tenant, 0x00, key), signed.
        `insert into ${t} (tenant, key, fingerprint, state, status, headers, body, created_at, expires_at, lock_id)
         select 'bench', k, md5(i::text) || md5((i + 1)::text), 'completed', 201,
                '{"content-type":"application/json","location":"/v1/payments/pay_x"}'::jsonb,
                '{"id":"pay_' || i || '","amount":"1999","currency":"USD","customerId":"cus_bench","status":"succeeded","createdAt":"2026-01-01T00:00:00.000Z"}',
                now() - interval '1 hour', now() + make_interval(secs => $3 - $4 * (1 - i::float8 / $5)),
                ('x' || substr(encode(sha256(convert_to('bench', 'UTF8') || '\\x00'::bytea || convert_to(k, 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint
           from generate_series($1::int, $2::int) i, lateral (select md5('md5:' || i) as k) keyed`,
        [from, to, expiresInSeconds, spreadSeconds, n],
      );
      log(`  ${schema}: ${to + 1} of ${n} keys`);
    }
    await sql.query(`alter table ${t} add primary key (lock_id, tenant, key)`);
    await sql.query(`create index idempotency_keys_expires_at on ${t} (expires_at)`);
    await sql.query(`vacuum analyze ${t}`);
    await mark(sql, schema, n);
    return { reused: false, seconds: (performance.now() - started) / 1000 };
  } finally {
    await sql.close();
  }
}

/**
 * The id of event i, as SQL: 22 characters that sort in publish order, the shape of the product's
 * time-ordered ids (`newId`), so a batch of deliveries touches neighbouring index pages as it would
 * in production. (Unpadded `'evt_' || i` sorts evt_250 a thousand entries away from evt_251.)
 */
const eventId = (i: string) => `'evt_' || lpad(${i}::text, 22, '0')`;

/** The delivery of event i's place in due order, as loaded (for putting claimed rows back). */
export const loadedDueAt = (table: string) =>
  `${table}.created_at + ${table}.sequence * interval '1 microsecond'`;

/**
 * A webhooks schema with one endpoint (the receiver at `target`) and `n` pending deliveries of `n`
 * events, all due now: a backlog. Reused when already loaded with the same n.
 */
export async function ensureDeliveries(
  url: string,
  schema: string,
  n: number,
  target: string,
  log: (s: string) => void = () => {},
): Promise<{ reused: boolean; seconds: number; endpointId: string }> {
  const sql = createPgSql({ connectionString: url, max: 2 });
  try {
    const webhooks = new Webhooks({
      sql,
      schema,
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
    });
    if ((await loaded(sql, schema)) === n) {
      await webhooks.migrate(); // a schema loaded by an older version
      const { rows } = await sql.query<{ id: string }>(`select id from ${schema}.webhook_endpoints limit 1`);
      return { reused: true, seconds: 0, endpointId: rows[0]!.id };
    }
    const started = performance.now();
    await sql.query(`drop schema if exists ${schema} cascade`);
    await webhooks.migrate();
    const ep = await webhooks.createEndpoint(sql, { tenant: 'bench', url: target, eventTypes: ['*'] });
    const endpointId = ep.endpoint.id;
    for (let from = 0; from < n; from += CHUNK) {
      const to = Math.min(n, from + CHUNK) - 1;
      await sql.query(
        `insert into ${schema}.webhook_events (tenant, id, type, api_version, sequence, data, created_at)
         select 'bench', ${eventId('i')}, 'order.created', '2026-01-01', i, '{"i":' || i || '}', now() - interval '1 minute'
           from generate_series($1::int, $2::int) i`,
        [from, to],
      );
      await sql.query(
        `insert into ${schema}.webhook_deliveries (tenant, endpoint_id, event_id, status, next_attempt_at, created_at, sequence)
         select 'bench', $3, ${eventId('i')}, 'pending', now() - interval '1 minute' + i * interval '1 microsecond', now() - interval '1 minute', i
           from generate_series($1::int, $2::int) i`,
        [from, to, endpointId],
      );
      log(`  ${schema}: ${to + 1} of ${n} deliveries`);
    }
    await sql.query(`vacuum analyze ${schema}.webhook_events`);
    await sql.query(`vacuum analyze ${schema}.webhook_deliveries`);
    await mark(sql, schema, n);
    return { reused: false, seconds: (performance.now() - started) / 1000, endpointId };
  } finally {
    await sql.close();
  }
}
