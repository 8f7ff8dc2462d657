// Event reads (listEvents, getEvent).
import type { Queryable } from '@surety/db';
import type { KeyedRow } from '../reads/pages.js';
import { refColumn } from './applications.js';
import type { Names } from './schema.js';
import { createdAtUs } from './values.js';

export interface EventRow {
  id: string;
  type: string;
  api_version: string;
  created_at: Date;
  sequence: string;
  resource: string | null;
  data: string;
  application_id: string | null;
}

const EVENT_COLUMNS = 'id, type, api_version, created_at, sequence::text, resource, data, application_id';

/**
 * A tenant's events, newest first, filtered by type, creation time, resource and application (id
 * or uid), from after the (created_at, id) of `after` when given.
 */
export async function selectEvents(
  q: Queryable,
  t: Pick<Names, 'EV' | 'AP'>,
  input: {
    tenant: string;
    limit: number;
    type: string | null;
    sinceIso: string | null;
    resource: string | null;
    /** Only the events of this application, by id or uid. */
    application: string | null;
    after: readonly [at: string, id: string] | null;
  },
): Promise<(EventRow & KeyedRow)[]> {
  const params: unknown[] = [input.tenant, input.limit];
  let where = 'tenant = $1';
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where += ` and ${clause.replace('?', `$${params.length}`)}`;
  };
  if (input.type) add('type = ?', input.type);
  if (input.sinceIso) add('created_at >= ?::timestamptz', input.sinceIso);
  if (input.resource) add('resource = ?', input.resource);
  if (input.application) {
    add(
      refColumn(input.application) === 'id'
        ? 'application_id = ?'
        : `application_id = (select id from ${t.AP} where tenant = $1 and uid = ?)`,
      input.application,
    );
  }
  if (input.after) {
    params.push(...input.after);
    where += ` and (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`;
  }
  const { rows } = await q.query<EventRow & KeyedRow>(
    `select ${EVENT_COLUMNS}, ${createdAtUs('created_at')} from ${t.EV}
      where ${where} order by created_at desc, id desc limit $2`,
    params,
  );
  return rows;
}

export async function selectEvent(
  q: Queryable,
  t: Pick<Names, 'EV'>,
  input: { tenant: string; id: string },
): Promise<EventRow | undefined> {
  const { rows } = await q.query<EventRow>(
    `select ${EVENT_COLUMNS} from ${t.EV} where tenant = $1 and id = $2`,
    [input.tenant, input.id],
  );
  return rows[0];
}
