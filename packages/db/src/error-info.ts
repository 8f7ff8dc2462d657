/** What a PostgreSQL error says, whichever driver raised it. */
export interface PgErrorInfo {
  /** The SQLSTATE (`23505` unique violation, `40001` serialization failure, …). */
  readonly code: string;
  /** The constraint that was violated, when the driver (or the message) names it. */
  readonly constraint?: string;
  /** The table, when the driver reports it. */
  readonly table?: string;
  readonly schema?: string;
  readonly message: string;
}

// Where each driver puts the server's ErrorResponse fields:
// - node-postgres and PGlite (pg-protocol's DatabaseError): code, constraint, table, schema;
//   knex rethrows that same object, with the SQL prepended to its message.
// - postgres.js (PostgresError): code, constraint_name, table_name, schema_name.
// - Prisma 6/7 with a driver adapter (PrismaClientKnownRequestError P2002 / P2010 …):
//   meta.driverAdapterError.cause = { originalCode, originalMessage, kind, constraint? };
//   Prisma's own engine: P2002 with meta.target, and meta.code / meta.message for a raw query.
// - Surety's own wrappers and many others: the original in `cause`.
const SQLSTATE = /^[0-9A-Z]{5}$/;
const NAMED_CONSTRAINT = /constraint "([^"]+)"/;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The objects of `error`'s chain that may carry the fields, nearest first; bounded. */
function chain(error: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && out.length < 8) {
    const item = queue.shift();
    if (typeof item !== 'object' || item === null || out.includes(item as Record<string, unknown>)) continue;
    const o = item as Record<string, unknown>;
    out.push(o);
    const meta = o.meta as Record<string, unknown> | undefined;
    const adapter = meta?.driverAdapterError as Record<string, unknown> | undefined;
    queue.push(adapter?.cause, adapter, meta, o.cause);
  }
  return out;
}

/**
 * Reads the SQLSTATE, the constraint and the table of a PostgreSQL error from whichever field the
 * driver that raised it uses (node-postgres, PGlite, postgres.js, Prisma, knex, and wrappers that
 * keep the original in `cause`). Undefined when `error` carries no SQLSTATE.
 * @example
 * const info = pgErrorInfo(error);
 * if (info?.code === '23505' && info.constraint === 'payments_pkey') return conflict();
 */
export function pgErrorInfo(error: unknown): PgErrorInfo | undefined {
  let code: string | undefined;
  let constraint: string | undefined;
  let table: string | undefined;
  let schema: string | undefined;
  let message: string | undefined;
  let prismaUnique = false;
  for (const o of chain(error)) {
    // Prisma's own codes (P2002 …) look like SQLSTATEs of class P2; its errors carry clientVersion.
    const prisma = typeof o.clientVersion === 'string';
    if (prisma && o.code === 'P2002') {
      prismaUnique = true;
      const target = (o.meta as { target?: unknown } | undefined)?.target;
      constraint ??= text(target);
    }
    const own = [prisma ? undefined : o.code, o.originalCode].find(
      (c) => typeof c === 'string' && SQLSTATE.test(c),
    );
    if (code === undefined && typeof own === 'string') {
      code = own;
      // The server's own words: Prisma keeps them in originalMessage beside its own message.
      message = text(o.originalMessage) ?? text(o.message) ?? message;
    }
    message ??= text(o.message);
    const c = o.constraint;
    constraint ??= text(c) ?? text(o.constraint_name) ?? text((c as { index?: unknown } | null)?.index);
    table ??= text(o.table) ?? text(o.table_name);
    schema ??= text(o.schema) ?? text(o.schema_name);
  }
  // Prisma's query engine (no driver adapter) reports a unique violation as P2002 alone.
  if (code === undefined && prismaUnique) code = '23505';
  if (code === undefined) return undefined;
  // Prisma's adapter reports the columns, not the name; the server's message names it.
  constraint ??= message?.match(NAMED_CONSTRAINT)?.[1];
  return {
    code,
    ...(constraint !== undefined && { constraint }),
    ...(table !== undefined && { table }),
    ...(schema !== undefined && { schema }),
    message: message ?? '',
  };
}
