import { createPgSql, openSql, type Sql } from '@surety/db';
import pg from 'pg';

// On PostgreSQL with a pool of your own (any pg.Pool options: host/user/database, ssl, a URL);
// without DATABASE_URL, the embedded PGlite in memory (needs `npm install @electric-sql/pglite`).
const url = process.env.DATABASE_URL;
const pool = url ? new pg.Pool({ connectionString: url, max: 5 }) : undefined;
const sql: Sql = pool ? createPgSql({ pool }) : await openSql({});

try {
  const total = await sql.transaction(async (tx) => {
    await tx.query('create temporary table readme_orders (id int primary key, cents int not null)');
    await tx.query('insert into readme_orders values ($1, $2), ($3, $4)', [1, 1999, 2, 500]);
    const { rows } = await tx.query<{ total: number }>('select sum(cents)::int as total from readme_orders');
    return rows[0]?.total;
  });
  console.log(`${sql.kind}: total ${total}`); // pg: total 2499 (or pglite: …)

  // LISTEN and NOTIFY, each on a connection of its own (opened with the pool's own settings).
  let heard!: (payload: string) => void;
  const message = new Promise<string>((resolve) => (heard = resolve));
  const stop = await sql.listen('readme', (payload) => heard(payload));
  await sql.notify('readme', 'hello');
  console.log(`heard: ${await message}`); // heard: hello
  await stop();
} finally {
  await sql.close();
  await pool?.end(); // createPgSql({ pool }) leaves your pool open
}
