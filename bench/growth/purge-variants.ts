// The purge variants bench/growth/purge.ts compares: purgeExpired's options by name, the purge as it was
// on main before issue 22, and the spec a variant is written in on the command line.
import type { Sql } from '@surety/db';
import type { PurgeOptions } from '@surety/idempotency';

export const PURGE_VARIANTS: Record<string, PurgeOptions | 'main'> = {
  default: {},
  main: 'main',
};

/**
 * The purge as it was before issue 22 (packages/idempotency/src/purge.ts at 7c929fb), for the
 * side-by-side: 500 rows a batch from the oldest entry of the expires_at index, synchronous commit,
 * a rest as long as the batch took.
 */
export async function purgeAsOnMain(sql: Sql, schema: string, maxRows: number): Promise<number> {
  const t = `"${schema}".idempotency_keys`;
  const text = `delete from ${t} where ctid = any (array(
                  select ctid from ${t} where expires_at <= $1::timestamptz
                   order by expires_at limit $2 for update skip locked))`;
  let total = 0;
  for (let i = 0; i < Math.ceil(maxRows / 500); i++) {
    const started = performance.now();
    const { rowCount } = await sql.query(text, [new Date().toISOString(), 500]);
    total += rowCount;
    if (rowCount < 500) break;
    const pause = performance.now() - started;
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
  }
  return total;
}

export interface PurgeVariant {
  options: PurgeOptions | 'main';
  /** Key-table storage parameters (`t.<name>:<value>` in a spec). */
  reloptions?: string;
  /** VACUUM the key table after the purge (`vacuumAfter:true`). */
  vacuumAfter?: boolean;
  /** Server settings for this variant's runs (`s.<name>:<value>`), ALTER SYSTEM and reload. */
  settings?: Record<string, string>;
}

/**
 * `name=batchSize:100/dutyCycle:0.1/asyncCommit:false/t.autovacuum_vacuum_cost_delay:20/vacuumAfter:true/s.wal_compression:off`,
 * or a name in PURGE_VARIANTS.
 */
export function parseVariant(spec: string): [string, PurgeVariant] {
  const known = PURGE_VARIANTS[spec];
  if (known) return [spec, { options: known }];
  const [name, body] = spec.split('=');
  if (!name || !body) throw new Error(`unknown purge variant ${spec}`);
  const options: Record<string, number | boolean> = {};
  const rel: string[] = [];
  let vacuumAfter = false;
  const settings: Record<string, string> = {};
  for (const part of body.split('/')) {
    const [k, v] = part.split(':');
    if (!k || v === undefined) throw new Error(`bad option ${part} in ${spec}`);
    if (k.startsWith('t.')) {
      if (!/^[a-z_.]+$/.test(k.slice(2)) || !/^[0-9a-z.]+$/.test(v))
        throw new Error(`bad table option ${part}`);
      rel.push(`${k.slice(2)} = ${v}`);
    } else if (k.startsWith('s.')) {
      if (!/^[a-z_]+$/.test(k.slice(2)) || !/^[0-9a-z.]+$/.test(v)) throw new Error(`bad setting ${part}`);
      settings[k.slice(2)] = v;
    } else if (k === 'vacuumAfter') vacuumAfter = v === 'true';
    else options[k] = v === 'true' ? true : v === 'false' ? false : Number(v);
  }
  return [
    name,
    {
      options: options as PurgeOptions,
      ...(rel.length ? { reloptions: rel.join(', ') } : {}),
      ...(vacuumAfter ? { vacuumAfter } : {}),
      ...(Object.keys(settings).length ? { settings } : {}),
    },
  ];
}
