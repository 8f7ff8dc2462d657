import { randomUUID } from 'node:crypto';
import type { Sql } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, eventValidator } from '../src/app.js';
import { parseApiKeys } from '../src/config.js';
import type { PspClient } from '../src/psp/client.js';
import { runMigrations } from '../src/server.js';
import { serviceRegistry } from '../src/service-events.js';

export const KEYS = {
  acme: 'sk_test_acme_0123456789abcdef',
  globex: 'sk_test_globex_0123456789abcdef',
} as const;
export const API_KEYS = `acme:${KEYS.acme},globex:${KEYS.globex}`;
export const auth = (tenant: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[tenant]}` });

/** A request as `tenant` through inject(), `body` sent as JSON when given. */
export const callAs = (
  app: FastifyInstance,
  tenant: keyof typeof KEYS,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  app.inject({
    method,
    url,
    headers: {
      ...auth(tenant),
      ...headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  /** Advances the idempotency engine's clock. */
  clock: { now: number };
  count(table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  ttlMs?: number;
  /** Registers more routes (the dashboard) before the app is made ready. */
  setup?: (app: FastifyInstance) => void | Promise<void>;
  /** The engine's limit on endpoints per tenant. @default the engine's */
  maxEndpointsPerTenant?: number;
  /** The payment provider's client. @default the in-process simulated provider */
  psp?: PspClient;
  /** How long a payment may stay processing without a definitive answer. @default 600000 */
  pspGiveUpMs?: number;
  /** The benchmark's baseline: POST /v1/payments without the idempotency layer. @default true */
  idempotentPayments?: boolean;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  await runMigrations(db.sql, db.schema);
  const clock = { now: Date.now() };
  const webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock.now,
    validate: eventValidator(serviceRegistry()),
    ...(options.maxEndpointsPerTenant ? { maxEndpointsPerTenant: options.maxEndpointsPerTenant } : {}),
  });
  const app = await buildApp({
    webhooks,
    sql: db.sql,
    config: {
      apiKeys: parseApiKeys(API_KEYS),
      bodyLimit: 65_536,
      idempotencyTtlMs: options.ttlMs ?? 86_400_000,
      schema: db.schema,
      ...(options.pspGiveUpMs ? { pspGiveUpMs: options.pspGiveUpMs } : {}),
    },
    ...(options.psp ? { psp: options.psp } : {}),
    ...(options.idempotentPayments === false ? { idempotentPayments: false } : {}),
    now: () => clock.now,
  }).catch(async (error: unknown) => {
    // A build that fails closes what it started; its database is this helper's to close.
    await db.close();
    throw error;
  });
  await options.setup?.(app);
  await app.ready();
  return {
    app,
    db,
    clock,
    async count(table, where = 'true', params = []) {
      const r = await db.sql.query<{ n: string }>(
        `select count(*)::text as n from "${db.schema}".${table} where ${where}`,
        params,
      );
      return Number(r.rows[0]!.n);
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}

export const newKey = () => randomUUID();

export function postPayment(
  app: FastifyInstance,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/payments',
    headers: { 'content-type': 'application/json', ...auth('acme'), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const PAYMENT = { amount: '1999', currency: 'USD', customerId: 'cus_9' };

/** A keyed POST /v1/payments to a running server (`base` is its URL), as tenant acme. */
export const postKeyed = (base: string, key: string, body: unknown = PAYMENT) =>
  fetch(`${base}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, ...auth('acme') },
    body: JSON.stringify(body),
  });

/** Asserts a problem+json answer and returns its parsed body. */
export function problem(res: LightMyRequestResponse, status: number, code: string) {
  if (res.statusCode !== status)
    throw new Error(`expected ${status} ${code}, got ${res.statusCode}: ${res.body}`);
  const type = String(res.headers['content-type']);
  if (!type.startsWith('application/problem+json')) throw new Error(`expected problem+json, got ${type}`);
  const body = res.json() as { code: string; status: number; title: string; detail: string };
  if (body.code !== code) throw new Error(`expected code ${code}, got ${body.code}: ${res.body}`);
  if (body.status !== status) throw new Error(`problem status ${body.status} != ${status}`);
  return body;
}

/** Waits (bounded) until a backend of this schema's test is waiting on a lock. */
export async function waitForLockWait(sql: Sql, schema: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await sql.query<{ n: string }>(
      `select count(*)::text as n from pg_stat_activity
        where wait_event_type = 'Lock' and query ilike $1`,
      [`%${schema}%payments%`],
    );
    if (Number(r.rows[0]!.n) > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no backend started waiting on the lock');
}
