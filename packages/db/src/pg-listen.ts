// Sql.listen on node-postgres: a connection of its own, opened again when it breaks (a restart, a
// failover, pg_terminate_backend) until the listener stops. Notifications sent while it was away are
// missed; its users poll as well (the delivery worker's idle poll), LISTEN only makes them prompt.
import pg from 'pg';
import { classifyPg } from './pooler.js';

/** The first try after a break, doubled up to the cap on each failed one. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

export async function listenOn(options: {
  open: { Client: typeof pg.Client; settings: pg.ClientConfig };
  applicationName: string;
  channel: string;
  onNotify: (payload: string) => void;
  onError?: ((error: Error) => void) | undefined;
}): Promise<() => Promise<void>> {
  const { open, channel, onNotify, onError } = options;
  let current: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = FIRST_RETRY_MS;

  const connect = async (): Promise<pg.Client> => {
    const client = new open.Client({ ...open.settings, application_name: options.applicationName });
    const broke = () => {
      if (client !== current) return;
      current = undefined;
      client.end().catch(() => {});
      retry();
    };
    client.on('error', (error) => {
      onError?.(error);
      broke();
    });
    client.on('end', broke);
    client.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw classifyPg(error);
    }
    return client;
  };
  const retry = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      timer = undefined;
      try {
        const client = await connect();
        if (stopped) await client.end().catch(() => {});
        else {
          current = client;
          delay = FIRST_RETRY_MS;
        }
      } catch (error) {
        onError?.(error as Error);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
        retry();
      }
    }, delay);
    timer.unref();
  };

  current = await connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const client = current;
    current = undefined;
    await client?.end().catch(() => {});
  };
}
