// Several hosts in one URL, libpq's way (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`),
// which node-postgres does not parse: every new connection goes to the read-write primary, found by
// trying the hosts in turn (`select pg_is_in_recovery()`), remembered, and looked for again after a
// connection to it fails or finds it read-only (a failover: the old primary gone, a standby promoted).
// Until one is found, connecting fails as unavailable (a 503 in the service): nothing runs on a
// standby, and nothing waits unbounded (each host gets `connectionTimeoutMillis`).
import pg from 'pg';
import { classify, DatabaseUnavailableError } from './errors.js';

export interface HostPort {
  host: string;
  port: number;
}

/**
 * The hosts of a multi-host URL and the URL with the first one only (node-postgres parses that for
 * the user, database and options); undefined for a URL with one host. `target_session_attrs` is
 * dropped: `read-write` (the only mode given meaning here) is what every connection gets; another
 * value is refused.
 */
export function parseMultiHostUrl(url: string): { hosts: HostPort[]; connectionString: string } | undefined {
  const match = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/s.exec(url);
  if (!match || !match[3]!.includes(',')) return undefined;
  const hosts = match[3]!.split(',').map((part): HostPort => {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(part);
    if (!m) throw new TypeError(`a host of the database URL is not host[:port]: ${JSON.stringify(part)}`);
    const port = Number(m[2] ?? 5432);
    if (port < 1 || port > 65535) throw new TypeError(`a port of the database URL is out of range: ${part}`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
  let rest = match[4]!;
  const query = /\?([^#]*)/.exec(rest);
  if (query) {
    const params = new URLSearchParams(query[1]);
    const attrs = params.get('target_session_attrs');
    if (attrs !== null && attrs !== 'read-write' && attrs !== 'primary') {
      throw new TypeError(`target_session_attrs=${attrs} is not supported: several hosts mean read-write`);
    }
    params.delete('target_session_attrs');
    const left = params.toString();
    rest = rest.replace(/\?[^#]*/, left ? `?${left}` : '');
  }
  const first = hosts[0]!;
  const host = first.host.includes(':') ? `[${first.host}]` : first.host;
  return { hosts, connectionString: `${match[1]}${match[2] ?? ''}${host}:${first.port}${rest}` };
}

/** Finds and remembers the read-write host; one search at a time, shared by every caller. */
export class PrimaryLocator {
  #primary: HostPort | undefined;
  #searching: Promise<HostPort> | undefined;
  constructor(
    readonly hosts: readonly HostPort[],
    private readonly config: pg.ClientConfig,
  ) {}

  /** The primary: the one remembered, or the first host found read-write. */
  primary(): Promise<HostPort> {
    if (this.#primary) return Promise.resolve(this.#primary);
    this.#searching ??= this.#search().finally(() => {
      this.#searching = undefined;
    });
    return this.#searching;
  }

  /** Forgets `host` as the primary (its connection failed or it was read-only). */
  forget(host: HostPort): void {
    if (this.#primary && this.#primary.host === host.host && this.#primary.port === host.port) {
      this.#primary = undefined;
    }
  }

  async #search(): Promise<HostPort> {
    const problems: string[] = [];
    for (const target of this.hosts) {
      const client = new pg.Client(this.config);
      aimAt(client, target);
      client.on('error', () => {});
      try {
        await client.connect();
        const r = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
        if (!r.rows[0]!.standby) {
          this.#primary = target;
          return target;
        }
        problems.push(`${target.host}:${target.port} is a standby`);
      } catch (error) {
        problems.push(`${target.host}:${target.port}: ${(error as Error).message}`);
      } finally {
        await client.end().catch(() => {});
      }
    }
    throw new DatabaseUnavailableError(
      `no read-write primary among the database hosts (${problems.join('; ')})`,
    );
  }
}

// node-postgres takes the host and port from a connection string over explicit ones, and reads
// them from the client when it connects: set there, after construction.
function aimAt(client: pg.Client, target: HostPort): void {
  const c = client as unknown as { host: string; port: number };
  c.host = target.host;
  c.port = target.port;
}

type ConnectCallback = ((err: Error) => void) | ((err: null, c: pg.Client) => void);

/**
 * A node-postgres Client class that connects to `locator`'s primary and checks it is one (a host can
 * be demoted, or be the old primary back as a standby): for `pg.Pool`'s `Client` option and the
 * LISTEN / NOTIFY connections.
 */
export function primaryClient(locator: PrimaryLocator): typeof pg.Client {
  class PrimaryClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.Client> | undefined {
      const connecting = this.#connect();
      if (!callback) return connecting;
      const done = callback as (err: Error | null, c?: pg.Client) => void;
      connecting.then(
        (client) => done(null, client),
        (error: Error) => done(error),
      );
      return undefined;
    }
    async #connect(): Promise<pg.Client> {
      const target = await locator.primary();
      aimAt(this, target);
      try {
        await super.connect();
        const r = await super.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
        if (r.rows[0]!.standby)
          throw new DatabaseUnavailableError(`${target.host}:${target.port} is a standby now`);
      } catch (error) {
        locator.forget(target);
        await super.end().catch(() => {});
        throw classify(error);
      }
      // A connection to it that breaks later: the next one looks for the primary again.
      this.on('error', () => locator.forget(target));
      return this;
    }
  }
  return PrimaryClient as unknown as typeof pg.Client;
}

/**
 * How to open connections for `settings`: node-postgres' own Client for one host; for a multi-host
 * URL, a Client that finds the primary (and the settings with the first host's URL).
 */
export function clientFor(settings: pg.ClientConfig): {
  Client: typeof pg.Client;
  settings: pg.ClientConfig;
} {
  const multi = settings.connectionString ? parseMultiHostUrl(settings.connectionString) : undefined;
  if (!multi) return { Client: pg.Client, settings };
  const single = { ...settings, connectionString: multi.connectionString };
  return { Client: primaryClient(new PrimaryLocator(multi.hosts, single)), settings: single };
}
