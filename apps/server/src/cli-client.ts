// The developer commands of the CLI: `surety trigger` and `surety listen`, which talk to a running
// service over its API (with @surety/fetch: retries with one Idempotency-Key, a deadline, a budget).
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { EventRegistry } from '@surety/events';
import { createFetch } from '@surety/fetch';
import { verifySync } from '@surety/webhook-verify';

export interface ClientOptions {
  url: string;
  apiKey: string;
}

export class CliError extends Error {
  readonly code = 'SURETY_CLI';
}

/** `--url`/SURETY_URL and `--api-key`/SURETY_API_KEY, else the dev key a local `surety serve` wrote. */
export function clientOptions(values: {
  url?: string | undefined;
  'api-key'?: string | undefined;
}): ClientOptions {
  const url = values.url ?? process.env.SURETY_URL ?? 'http://127.0.0.1:3000';
  let apiKey = values['api-key'] ?? process.env.SURETY_API_KEY;
  if (!apiKey) {
    const file = join(resolve(process.env.SURETY_DATA_DIR || './.surety'), 'dev-api-key');
    if (existsSync(file)) apiKey = readFileSync(file, 'utf8').trim();
  }
  if (!apiKey) throw new CliError('no API key: pass --api-key or set SURETY_API_KEY');
  try {
    new URL(url);
  } catch {
    throw new CliError(`--url is not a URL: ${url}`);
  }
  return { url: url.replace(/\/$/, ''), apiKey };
}

async function api(fetcher: typeof fetch, o: ClientOptions, method: string, path: string, body?: unknown) {
  const res = await fetcher(`${o.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${o.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok)
    throw new CliError(`${method} ${path}: ${res.status} ${String(json.detail ?? json.title ?? text)}`);
  return json;
}

/** Publishes the registry's sample of `type` (or `data`) through POST /v1/events. */
export async function trigger(
  o: ClientOptions,
  registry: EventRegistry,
  type: string,
  data: unknown,
  out: (line: string) => void,
): Promise<string> {
  const def = registry.get(type);
  if (!def)
    throw new CliError(
      `unknown event type ${type}; known: ${registry
        .list()
        .map((e) => e.type)
        .join(', ')}`,
    );
  const fetcher = createFetch({ idempotencyKey: 'auto' });
  try {
    const event = await api(fetcher as typeof fetch, o, 'POST', '/v1/events', {
      type,
      data: data ?? def.sample,
    });
    out(`published ${event.id} (${type})`);
    return String(event.id);
  } finally {
    await fetcher.close();
  }
}

export interface Listener {
  endpointId: string;
  url: string;
  /** Removes the endpoint and stops listening. */
  close(): Promise<void>;
}

/**
 * Registers a temporary endpoint pointing at a local listener, prints each event with its
 * verification result, forwards it with the original headers, and removes the endpoint on close.
 */
export async function listen(
  o: ClientOptions,
  options: { forwardTo?: string | undefined; events: string[]; port: number; host: string },
  out: (line: string) => void,
): Promise<Listener> {
  const fetcher = createFetch({ idempotencyKey: 'auto' });
  let secret = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      handle(req.headers, body).then(
        (status) => res.writeHead(status).end(),
        () => res.writeHead(502).end(),
      );
    });
  });
  async function handle(headers: IncomingHttpHeaders, body: Buffer): Promise<number> {
    let verdict: string;
    let type = '?';
    try {
      verifySync({ body, headers, secrets: [secret] });
      verdict = 'signature ok';
      type = String((JSON.parse(body.toString()) as { type?: unknown }).type);
    } catch (error) {
      verdict = `signature FAILED: ${(error as Error).message}`;
    }
    const id = String(headers['webhook-id'] ?? '?');
    if (!options.forwardTo) {
      out(`<- ${id} ${type} (${verdict})`);
      return verdict === 'signature ok' ? 204 : 401;
    }
    const forwarded: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      if (v !== undefined && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k)) {
        forwarded[k] = Array.isArray(v) ? v.join(', ') : v;
      }
    }
    try {
      const res = await fetch(options.forwardTo, {
        method: 'POST',
        headers: forwarded,
        body: new Uint8Array(body),
      });
      await res.arrayBuffer();
      out(`<- ${id} ${type} (${verdict}) -> ${options.forwardTo} ${res.status}`);
      return res.status;
    } catch (error) {
      out(`<- ${id} ${type} (${verdict}) -> ${options.forwardTo} failed: ${(error as Error).message}`);
      return 502;
    }
  }
  await new Promise<void>((r) => server.listen(options.port, options.host, r));
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host}:${port}/`;
  let endpointId: string;
  try {
    const endpoint = await api(fetcher as typeof fetch, o, 'POST', '/v1/webhook-endpoints', {
      url,
      eventTypes: options.events,
      description: 'surety listen (temporary)',
    });
    endpointId = String(endpoint.id);
    secret = String(endpoint.secret);
  } catch (error) {
    server.close();
    await fetcher.close();
    throw error;
  }
  out(`listening on ${url} as endpoint ${endpointId} for ${options.events.join(', ')}`);
  return {
    endpointId,
    url,
    async close() {
      try {
        await api(fetcher as typeof fetch, o, 'DELETE', `/v1/webhook-endpoints/${endpointId}`);
        out(`removed endpoint ${endpointId}`);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
        await fetcher.close();
      }
    },
  };
}
