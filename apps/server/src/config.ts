import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type AllowList, DEFAULT_SCHEDULE, parseAllowList, parseSchedule } from '@surety/webhooks';
import { type DatabaseConfig, parseDatabaseConfig } from './database.js';

/** The service's settings, from the environment (see docs/operations.md). */
export interface Config extends DatabaseConfig {
  port: number;
  host: string;
  dataDir: string;
  /** SHA-256 of each API key → its tenant. */
  apiKeys: Map<string, string>;
  /** True when no keys were configured and a development key was generated. */
  devMode: boolean;
  devKey?: string;
  /** The largest accepted request body, in bytes. @default 65536 */
  bodyLimit: number;
  /** How long idempotency keys are kept, in ms. @default 86400000 */
  idempotencyTtlMs: number;
  /**
   * The expired-key purge (SURETY_IDEMPOTENCY_PURGE_*; docs/operations.md): every `intervalMs`,
   * batches of `batchSize` rows, working at most `dutyCycle` of the time, at most `maxBatches` a run.
   * @default { intervalMs: 600000, batchSize: 200, dutyCycle: 0.2, maxBatches: 5000 }
   */
  idempotencyPurge: { intervalMs: number; batchSize: number; dutyCycle: number; maxBatches: number };
  /** Database schema for every table. @default "surety" */
  schema: string;
  logLevel: string;
  /** Private ranges webhook URLs may reach (SURETY_WEBHOOK_ALLOWED_CIDRS). */
  webhookAllowList: AllowList;
  /** Allow http:// webhook URLs (SURETY_WEBHOOK_ALLOW_HTTP=true; development only). @default false */
  webhookAllowHttp: boolean;
  /** Delays after the first attempt, seconds (SURETY_WEBHOOK_RETRY_SCHEDULE). */
  webhookSchedule: number[];
  /** Run delivery workers inside `serve` (SURETY_WORKER=off to run them apart). @default true */
  worker: boolean;
  /**
   * The payment provider's base URL (SURETY_PSP_URL); unset, `serve` runs the simulated provider
   * in-process on loopback (docs/side-effects.md).
   */
  pspUrl: string | undefined;
  /** The most one charge call takes, retries included (SURETY_PSP_DEADLINE_MS). @default 10000 */
  pspDeadlineMs: number;
  /**
   * How long a payment stays `processing` while the provider gives no definitive answer before it
   * is `failed` with `provider_unavailable` (SURETY_PSP_GIVE_UP_SECONDS). @default 600
   */
  pspGiveUpMs: number;
  /** The lease of a phased request (SURETY_IDEMPOTENCY_LEASE_SECONDS). @default 30 */
  idempotencyLeaseMs: number;
  /**
   * Warn when a keyed 2xx wrote nothing in its transaction, the naive-ORM guard (docs/orm.md; one
   * statement per request): SURETY_IDEMPOTENCY_GUARD=true, whatever NODE_ENV says. @default false
   */
  idempotencyGuard: boolean;
  /** Days events and attempts are kept (SURETY_RETENTION_DAYS). @default 30 */
  retentionDays: number;
  /** Width of a history partition, days (SURETY_WEBHOOK_PARTITION_DAYS). @default 1 */
  webhookPartitionDays: number;
  /** History partitions kept ready ahead (SURETY_WEBHOOK_PARTITIONS_AHEAD). @default 7 */
  webhookPartitionsAhead: number;
  /**
   * The service creates and drops the history's partitions itself
   * (SURETY_WEBHOOK_PARTITION_MAINTENANCE=off where pg_partman manages them). @default true
   */
  webhookPartitionMaintenance: boolean;
  /**
   * Most webhook attempts in flight for one endpoint, across every worker
   * (SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT). @default 32
   */
  webhookMaxInFlightPerEndpoint: number;
  /**
   * Most webhook attempts in flight for one tenant, across every worker
   * (SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_TENANT). @default 48
   */
  webhookMaxInFlightPerTenant: number;
  /**
   * Pending deliveries of one endpoint that publish the operational event
   * `endpoint.backlog_exceeded` (cleared at half; SURETY_WEBHOOK_BACKLOG_THRESHOLD). @default 1000
   */
  webhookBacklogThreshold: number;
  /**
   * Most webhook attempts in flight at once in one worker process (SURETY_WEBHOOK_CONCURRENCY).
   * @default 64
   */
  webhookConcurrency: number;
  /** Most webhook endpoints per tenant (SURETY_MAX_ENDPOINTS_PER_TENANT). @default 10000 */
  webhookMaxEndpointsPerTenant: number;
  /**
   * The service's address as the tenant's customers reach it (SURETY_PUBLIC_URL,
   * `https://hooks.example.com`): portal session links start with it. Unset: each link is built
   * from the request that opened the session (its Host, and X-Forwarded-Proto not trusted).
   */
  publicUrl: string | undefined;
}

export class ConfigError extends Error {
  readonly code = 'SURETY_CONFIG';
}

/**
 * Parses `tenant:key,tenant:key`. Refuses, naming the entry (never the key), a blank list, an empty
 * entry, a key that could never authenticate (shorter than 16 characters, or anything but visible
 * ASCII: the bearer header is matched as `\S+` and compared byte for byte), a key starting with
 * `ps_` (a portal token's prefix) and a key listed twice (it would belong to the last tenant only).
 */
export function parseApiKeys(value: string): Map<string, string> {
  const map = new Map<string, string>();
  const entries = value.split(',').map((s) => s.trim());
  if (entries.every((e) => e === '')) {
    throw new ConfigError(
      'SURETY_API_KEYS is set but has no tenant:key pair; set "tenant:key,..." or unset it for dev mode',
    );
  }
  const seen = new Map<string, { entry: number; tenant: string }>();
  entries.forEach((pair, index) => {
    const entry = index + 1;
    if (pair === '')
      throw new ConfigError(`SURETY_API_KEYS entry ${entry} is empty (two commas, or a comma at an end)`);
    const i = pair.indexOf(':');
    if (i < 0) throw new ConfigError(`SURETY_API_KEYS entry ${entry} is not "tenant:key"`);
    const tenant = pair.slice(0, i).trim();
    const key = pair.slice(i + 1).trim();
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(tenant)) {
      throw new ConfigError(`SURETY_API_KEYS entry ${entry}: the tenant name must be 1-64 of [A-Za-z0-9_.-]`);
    }
    const where = `SURETY_API_KEYS entry ${entry} (tenant "${tenant}")`;
    if (!/^[\x21-\x7e]*$/.test(key)) {
      throw new ConfigError(
        `${where}: the key may only contain visible ASCII (no spaces, tabs or other characters): it could never authenticate`,
      );
    }
    if (key.length < 16) throw new ConfigError(`${where}: the key must be at least 16 characters`);
    // `ps_` is how portal tokens start (src/portal/token.ts): such a key would be read as one.
    if (key.startsWith('ps_'))
      throw new ConfigError(`${where}: the key may not start with "ps_" (portal tokens do)`);
    const hash = hashKey(key);
    const first = seen.get(hash);
    if (first) {
      throw new ConfigError(
        `SURETY_API_KEYS entries ${first.entry} (tenant "${first.tenant}") and ${entry} (tenant "${tenant}") ` +
          'have the same key; every key must be listed once',
      );
    }
    seen.set(hash, { entry, tenant });
    map.set(hash, tenant);
  });
  return map;
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

const NODE_ENVS = ['', 'production', 'development', 'test'];

/** `on` or `off` (also true/false, yes/no, 1/0); anything else refuses to start. */
function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got ${JSON.stringify(raw)}`);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** SURETY_PUBLIC_URL: an http(s) origin, optionally with a path, no query or fragment; no trailing `/`. */
export function parsePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`SURETY_PUBLIC_URL is not a URL: ${JSON.stringify(value)}`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash) {
    throw new ConfigError(
      'SURETY_PUBLIC_URL must be http(s)://host[:port][/path], with no user, query or fragment',
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Reads the configuration. Without SURETY_API_KEYS the service does not run open: outside
 * production it generates a development key (kept in the data directory) and says so loudly;
 * with NODE_ENV=production it refuses to start. Dev mode is chosen only when SURETY_API_KEYS is not
 * set at all; a blank or malformed value, or a NODE_ENV other than production/development/test,
 * throws a ConfigError that names the mistake.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.SURETY_DATA_DIR || './.surety');
  const database = parseDatabaseConfig(env, (message) => {
    throw new ConfigError(message);
  });
  const nodeEnv = env.NODE_ENV ?? '';
  // A typo here ("Production", "prod") used to mean "not production": dev mode without keys.
  if (!NODE_ENVS.includes(nodeEnv)) {
    throw new ConfigError(
      `NODE_ENV must be "production", "development" or "test" (or unset), got ${JSON.stringify(nodeEnv)}`,
    );
  }
  // Dev mode only when SURETY_API_KEYS is absent: a value that is set but blank is a mistake.
  let apiKeys =
    env.SURETY_API_KEYS === undefined ? new Map<string, string>() : parseApiKeys(env.SURETY_API_KEYS);
  let devMode = false;
  let devKey: string | undefined;
  if (env.SURETY_API_KEYS === undefined) {
    if (nodeEnv === 'production') {
      throw new ConfigError('SURETY_API_KEYS is not set; refusing to start without API keys in production');
    }
    devMode = true;
    const file = join(dataDir, 'dev-api-key');
    if (existsSync(file)) {
      devKey = readFileSync(file, 'utf8').trim();
    } else {
      devKey = `sk_dev_${randomBytes(18).toString('base64url')}`;
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, `${devKey}\n`, { mode: 0o600 });
    }
    apiKeys = new Map([[hashKey(devKey), 'dev']]);
  }
  let webhookAllowList: AllowList;
  let webhookSchedule: number[];
  try {
    // Dev mode (already loudly labelled) lets webhooks reach 127.0.0.1 over http, for `surety listen`.
    webhookAllowList = parseAllowList(env.SURETY_WEBHOOK_ALLOWED_CIDRS ?? (devMode ? '127.0.0.1/32' : ''));
    webhookSchedule = env.SURETY_WEBHOOK_RETRY_SCHEDULE
      ? parseSchedule(env.SURETY_WEBHOOK_RETRY_SCHEDULE)
      : [...DEFAULT_SCHEDULE];
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const schema = env.SURETY_SCHEMA || 'surety';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new ConfigError('SURETY_SCHEMA must be a lower-case identifier');
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    ...database,
    dataDir,
    apiKeys,
    devMode,
    ...(devKey ? { devKey } : {}),
    bodyLimit: integer(env, 'SURETY_BODY_LIMIT', 65_536, 1024, 10_485_760),
    idempotencyTtlMs: integer(env, 'SURETY_IDEMPOTENCY_TTL_SECONDS', 86_400, 1, 31_536_000) * 1000,
    idempotencyPurge: {
      intervalMs: integer(env, 'SURETY_IDEMPOTENCY_PURGE_INTERVAL_SECONDS', 600, 1, 86_400) * 1000,
      batchSize: integer(env, 'SURETY_IDEMPOTENCY_PURGE_BATCH_SIZE', 200, 1, 10_000),
      dutyCycle: integer(env, 'SURETY_IDEMPOTENCY_PURGE_DUTY_PERCENT', 20, 1, 100) / 100,
      maxBatches: integer(env, 'SURETY_IDEMPOTENCY_PURGE_MAX_BATCHES', 5000, 1, 1_000_000),
    },
    schema,
    logLevel: env.LOG_LEVEL || 'info',
    webhookAllowList,
    webhookAllowHttp: /^(1|true|yes)$/i.test(env.SURETY_WEBHOOK_ALLOW_HTTP ?? (devMode ? 'true' : '')),
    webhookSchedule,
    worker: !/^(0|false|no|off)$/i.test(env.SURETY_WORKER ?? ''),
    pspUrl: env.SURETY_PSP_URL ? parsePspUrl(env.SURETY_PSP_URL) : undefined,
    pspDeadlineMs: integer(env, 'SURETY_PSP_DEADLINE_MS', 10_000, 100, 120_000),
    pspGiveUpMs: integer(env, 'SURETY_PSP_GIVE_UP_SECONDS', 600, 1, 604_800) * 1000,
    idempotencyLeaseMs: integer(env, 'SURETY_IDEMPOTENCY_LEASE_SECONDS', 30, 1, 3_600) * 1000,
    idempotencyGuard: /^(1|true|yes)$/i.test(env.SURETY_IDEMPOTENCY_GUARD ?? ''),
    retentionDays: integer(env, 'SURETY_RETENTION_DAYS', 30, 1, 3650),
    webhookPartitionDays: integer(env, 'SURETY_WEBHOOK_PARTITION_DAYS', 1, 1, 31),
    webhookPartitionsAhead: integer(env, 'SURETY_WEBHOOK_PARTITIONS_AHEAD', 7, 1, 366),
    webhookPartitionMaintenance: onOff(env, 'SURETY_WEBHOOK_PARTITION_MAINTENANCE', true),
    webhookMaxInFlightPerEndpoint: integer(env, 'SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', 32, 1, 100_000),
    webhookMaxInFlightPerTenant: integer(env, 'SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_TENANT', 48, 1, 100_000),
    webhookConcurrency: integer(env, 'SURETY_WEBHOOK_CONCURRENCY', 64, 1, 10_000),
    webhookBacklogThreshold: integer(env, 'SURETY_WEBHOOK_BACKLOG_THRESHOLD', 1000, 1, 100_000_000),
    webhookMaxEndpointsPerTenant: integer(env, 'SURETY_MAX_ENDPOINTS_PER_TENANT', 10_000, 1, 1_000_000),
    publicUrl: env.SURETY_PUBLIC_URL ? parsePublicUrl(env.SURETY_PUBLIC_URL) : undefined,
  };
}

/** SURETY_PSP_URL: an http(s) URL without credentials (they would end up in logs). */
function parsePspUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('SURETY_PSP_URL must be an http(s) URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password)
    throw new ConfigError('SURETY_PSP_URL must be an http(s) URL without credentials');
  return url.href;
}
