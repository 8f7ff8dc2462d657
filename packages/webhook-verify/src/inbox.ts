import {
  loadMigrations,
  migrate,
  type Queryable,
  quoteSchema,
  type Sql,
  type Statement,
  type Tx,
} from '@surety/db';
import { traceInboxRecord } from './tracing.js';

/** This subpath's migrations (`sql/`), for `migrate(sql, { sets: [...] })` with other packages'. */
export const migrations = loadMigrations('webhook_inbox', new URL('../sql/', import.meta.url));

export interface InboxOptions {
  /** The PostgreSQL schema of the `webhook_inbox` table. @default "surety" */
  schema?: string;
  /**
   * Whose inbox: ids are de-duplicated per consumer (a tenant, or one handler of several that
   * consume the same events). An event's own `consumer` wins over this.
   * @default ""
   */
  consumer?: string;
  /** The clock for `received_at`, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
}

/** The part of an event the inbox needs: its id (the `webhook-id`, or the envelope's `id`). */
export interface InboxEvent {
  id: string;
  consumer?: string;
}

/**
 * Tagged `kind` (the discriminant): `processed` with the handler's result, or `duplicate`: the
 * event was already processed, so acknowledge it (2xx) and do nothing. `duplicate` says the same
 * as a boolean (kept for existing callers).
 */
export type Received<T> =
  | { kind: 'processed'; duplicate: false; result: T }
  | { kind: 'duplicate'; duplicate: true };

export interface Inbox {
  /**
   * Records `event.id` in the transaction `tx` and runs `handler(tx)` only if it was not recorded
   * before. Do the handler's writes on `tx` and let its errors propagate, so that a failure rolls
   * the record back with them and the redelivery runs it again.
   */
  receive<T>(tx: Tx, event: InboxEvent, handler: (tx: Tx) => Promise<T>): Promise<Received<T>>;
  /** Creates or upgrades the `webhook_inbox` table. */
  migrate(sql: Sql): Promise<void>;
  /** Forgets events received before `olderThan`; keep them longer than the sender retries (days). */
  purge(sql: Queryable, olderThan: Date): Promise<number>;
}

interface Statements {
  record: Statement;
  purge: Statement;
}

function statements(schema: string): Statements {
  const table = `${quoteSchema(schema)}.webhook_inbox`;
  const name = (s: string) => `surety_inbox_${s}_${schema}`.slice(0, 63);
  return {
    // ON CONFLICT DO NOTHING waits for a concurrent uncommitted insert of the same key, then skips
    // (it committed) or inserts (it rolled back): exactly one transaction runs the handler.
    record: {
      name: name('record'),
      text: `insert into ${table} (consumer, event_id, received_at) values ($1, $2, $3::timestamptz)
             on conflict (consumer, event_id) do nothing`,
    },
    purge: { name: name('purge'), text: `delete from ${table} where received_at < $1::timestamptz` },
  };
}

/**
 * A durable inbox for at-least-once webhooks.
 * @example
 * const inbox = createInbox({ schema: 'surety', consumer: 'billing' });
 * await inbox.migrate(sql);
 * // in the receiver, after verify():
 * await sql.transaction((tx) => inbox.receive(tx, { id: webhook.id! }, (tx) => applyPayment(tx, body)));
 * reply.code(200); // only now, after COMMIT
 */
export function createInbox(options: InboxOptions = {}): Inbox {
  const schema = options.schema ?? 'surety';
  const consumer = options.consumer ?? '';
  const now = options.now ?? Date.now;
  const sql = statements(schema);
  return {
    async receive(tx, event, handler) {
      if (typeof event?.id !== 'string' || event.id === '')
        throw new TypeError('event.id must be a non-empty string');
      const { duplicate } = await traceInboxRecord(event.id, async () => {
        const inserted = await tx.query(sql.record, [
          event.consumer ?? consumer,
          event.id,
          new Date(now()).toISOString(),
        ]);
        return { duplicate: inserted.rowCount === 0 };
      });
      if (duplicate) return { kind: 'duplicate', duplicate: true };
      return { kind: 'processed', duplicate: false, result: await handler(tx) };
    },
    async migrate(db) {
      await migrate(db, { schema, sets: [migrations] });
    },
    async purge(db, olderThan) {
      return (await db.query(sql.purge, [olderThan.toISOString()])).rowCount;
    },
  };
}

const defaultInbox = createInbox();

/**
 * `createInbox().receive`: the inbox in schema `surety`, consumer `""`.
 * @example
 * const outcome = await sql.transaction((tx) => receive(tx, event, async (tx) => { … }));
 * if (outcome.kind === 'duplicate') log.info('redelivery of %s acknowledged', event.id);
 */
export function receive<T>(tx: Tx, event: InboxEvent, handler: (tx: Tx) => Promise<T>): Promise<Received<T>> {
  return defaultInbox.receive(tx, event, handler);
}
