// What the install-from-tarballs smoke test (smoke.mjs) writes into its two apps: the versions of
// the third-party packages they install, the compiler options, and the sources of the consumers and
// scripts it type-checks and runs there.

/** Versions of the third-party packages the apps install: the ones the workspace tests against. */
export const THIRD_PARTY = {
  pg: '^8.23.1',
  '@electric-sql/pglite': '^0.5.17',
  express: '^5.3.0',
  '@types/express': '^5.0.6',
  fastify: '^5.12.8',
  hono: '^4.13.19',
  '@types/node': '^20.19.43',
  // the ORMs of @surety/db's subpaths (optional peers)
  kysely: '^0.28.19',
  'drizzle-orm': '^0.45.4',
  knex: '^3.3.0',
  '@prisma/adapter-pg': '^7.10.0',
  // NestJS for @surety/idempotency/nestjs (optional peers)
  '@nestjs/common': '^11.2.10',
  '@nestjs/core': '^11.2.10',
  'reflect-metadata': '^0.2.2',
  rxjs: '^7.8.2',
};

export const COMPILER = {
  strict: true,
  skipLibCheck: false,
  esModuleInterop: true,
  target: 'ES2022',
  lib: ['ES2023'],
  types: ['node'],
};
export const RESOLUTIONS = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
  node10: { module: 'esnext', moduleResolution: 'node10' },
};

export const CONSUMER_MAIN = `// Each package's main API, from its root entry (what node10 resolves through main/types).
import { evaluatePreconditions, versionETag } from '@surety/conditional';
import { createPgSql, isMissingPeerError, openSql, type Sql } from '@surety/db';
import { buildAsyncApi, createRegistry } from '@surety/events';
import { createFetch } from '@surety/fetch';
import { createIdempotency, type Idempotency } from '@surety/idempotency';
import { createVerifier, sign, type VerifiedWebhook } from '@surety/webhook-verify';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import pg from 'pg';

export async function main(): Promise<string> {
  const pool = new pg.Pool({ host: '127.0.0.1', user: 'app', database: 'app' });
  const sql: Sql = process.env.DATABASE_URL ? createPgSql({ pool }) : await openSql({}).catch((e: unknown) => {
    if (isMissingPeerError(e)) console.log(e.packageName);
    throw e;
  });
  const engine: Idempotency = createIdempotency({ sql, ttlMs: 1000 });
  const webhooks = new Webhooks({ sql, allowList: parseAllowList('127.0.0.1/32') });
  const worker = new DeliveryWorker({ webhooks, pollIntervalMs: 500 });
  const tag: string = versionETag(3);
  const result = evaluatePreconditions({ method: 'PUT', headers: { 'if-match': tag }, current: { exists: true, etag: tag } });
  const doc = buildAsyncApi(createRegistry());
  const fetch = createFetch({ idempotencyKey: 'auto', deadlineMs: 1000 });
  const headers = await sign({ id: 'evt_1', body: '{"id":"evt_1"}', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] });
  const verified: VerifiedWebhook = await createVerifier({ secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }).verify('{"id":"evt_1"}', headers);
  await worker.stop();
  await fetch.close();
  await engine.migrate();
  return result.outcome + doc.asyncapi + String(verified.id);
}
`;

export const CONSUMER_SUBPATHS = `// The adapters and helpers under subpaths (node16 and bundler resolve them through exports).
import { checkPreconditions as expressCheck } from '@surety/conditional/express';
import { checkPreconditions as fastifyCheck } from '@surety/conditional/fastify';
import { checkPreconditions as honoCheck } from '@surety/conditional/hono';
// @surety/db/drizzle is left out: drizzle-orm 0.45's own declarations fail skipLibCheck false
// (its singlestore-core column builders, TS2515/TS2416), whoever imports them; it is imported and
// required at run time above, and type-checked by the workspace's tsc.
import { knexOf } from '@surety/db/knex';
import { kyselyOf } from '@surety/db/kysely';
import { createTestDatabase } from '@surety/db/testing';
import { deadline } from '@surety/fetch/fastify';
import { readDeadline } from '@surety/fetch/server';
import { createFakeClock } from '@surety/fetch/testing';
import { idempotency as expressIdempotency } from '@surety/idempotency/express';
import { idempotency as fastifyIdempotency } from '@surety/idempotency/fastify';
import { idempotency as honoIdempotency } from '@surety/idempotency/hono';
import * as verifyExpress from '@surety/webhook-verify/express';
import * as verifyFastify from '@surety/webhook-verify/fastify';
import * as verifyHono from '@surety/webhook-verify/hono';
import * as inbox from '@surety/webhook-verify/inbox';
import { startReceiver } from '@surety/webhooks/testing';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';

export const used = [expressCheck, fastifyCheck, honoCheck, knexOf, kyselyOf, createTestDatabase, deadline, readDeadline,
  createFakeClock, expressIdempotency, fastifyIdempotency, honoIdempotency, verifyExpress, verifyFastify,
  verifyHono, inbox, startReceiver, express, Fastify, Hono];
`;

export const CONSUMER_PG_ONLY = `// A team on PostgreSQL with Express: its types must hold without PGlite or fastify-plugin installed.
import { createPgSql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { idempotency } from '@surety/idempotency/express';
import express from 'express';
import pg from 'pg';

const sql = createPgSql({ pool: new pg.Pool({ host: '127.0.0.1', user: 'app', database: 'app' }) });
const engine = createIdempotency({ sql });
export const app = express().post('/payments', express.json(), idempotency({ engine }), (req, res) => {
  void req.tx?.query('select 1');
  res.status(201).end();
});
`;

export const MISSING_PGLITE = `import { isMissingPeerError, openSql } from '@surety/db';
try {
  await openSql({});
  throw new Error('openSql({}) worked without @electric-sql/pglite');
} catch (error) {
  if (!isMissingPeerError(error) || error.code !== 'SURETY_DB_MISSING_PEER') throw error;
  if (error.packageName !== '@electric-sql/pglite' || !error.message.includes('npm install @electric-sql/pglite')) {
    throw new Error('the error does not name the package: ' + error.message);
  }
  console.log(error.message);
}
`;

/** `import()` then `require()` each specifier; prints JSON { esm: {spec: error|null}, cjs: {...} }. */
export const LOADER = `const specs = JSON.parse(process.argv[2]);
const { createRequire } = await import('node:module');
const require = createRequire(process.cwd() + '/');
const out = { esm: {}, cjs: {} };
for (const s of specs) {
  try { const m = await import(s); out.esm[s] = Object.keys(m).length > 0 ? null : 'no exports'; }
  catch (e) { out.esm[s] = (e.code ?? '') + ' ' + e.message; }
  try { const m = require(s); out.cjs[s] = Object.keys(m).length > 0 ? null : 'no exports'; }
  catch (e) { out.cjs[s] = (e.code ?? '') + ' ' + e.message; }
}
console.log(JSON.stringify(out));
`;

/** @surety/webhooks/testing from the install: a worker process started with plain node delivers. */
export const WORKER_PROCESS = `import { createPgSql } from '@surety/db';
import { Webhooks, parseAllowList } from '@surety/webhooks';
import { spawnWorkerProcess, startReceiver, stopProcess } from '@surety/webhooks/testing';
const schema = 'smoke_' + process.pid;
const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
const webhooks = new Webhooks({ sql, schema, allowHttp: true, allowList: parseAllowList('127.0.0.1/32') });
await webhooks.migrate();
const rx = await startReceiver();
const child = await spawnWorkerProcess({ databaseUrl: process.env.DATABASE_URL, schema });
try {
  await webhooks.createEndpoint(sql, { tenant: 't', url: rx.url, eventTypes: ['*'] });
  await sql.transaction((tx) => webhooks.publish(tx, { tenant: 't', type: 'order.created', data: {} }));
  await rx.waitFor(1, 30000);
  console.log('delivered by a worker process');
} finally {
  await stopProcess(child);
  await rx.close();
  await sql.query('drop schema if exists "' + schema + '" cascade');
  await sql.close();
}
`;
