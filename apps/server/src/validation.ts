/**
 * Request validation: bodies are checked strictly (no unknown fields, no coercion); query strings and
 * path parameters, strings on the wire, are coerced. Every `date-time` must also be one PostgreSQL
 * can store.
 */
import { isStorableTimestamp } from '@surety/db';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/** The service's schema compiler: strict for bodies, coercing for the rest. */
export function makeValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = new Ajv({
    removeAdditional: false,
    coerceTypes: false,
    allErrors: true,
    useDefaults: true,
    strict: false,
  });
  const coercing = new Ajv({
    removeAdditional: false,
    coerceTypes: true,
    allErrors: true,
    useDefaults: true,
    strict: false,
  });
  for (const ajv of [strict, coercing]) {
    addFormats.default(ajv, ['date-time', 'date', 'uri', 'email', 'uuid']);
    ajv.addKeyword(STORABLE_DATE_TIME);
  }
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(withStorableDates(schema)) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

/**
 * Every `format: "date-time"` of every schema also gets this keyword: RFC 3339 allows instants
 * that PostgreSQL cannot be sent (year 0000; `0001-01-01T00:30:00+01:00` is year 0 in UTC; and
 * `9999-12-31T23:59:59-00:01` year 10000). They are refused with 400 `date_out_of_range`.
 */
const STORABLE_DATE_TIME = {
  keyword: 'x-storable-date-time',
  type: 'string',
  schemaType: 'boolean',
  errors: true,
  validate: function storable(this: unknown, _schema: boolean, data: string): boolean {
    const ms = Date.parse(data);
    if (isStorableTimestamp(ms)) return true;
    const readable = !Number.isNaN(ms);
    (storable as { errors?: unknown[] }).errors = [
      {
        keyword: 'x-storable-date-time',
        message: readable
          ? 'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (UTC)'
          : 'is not a date-time this service can read',
        params: { outOfRange: readable },
      },
    ];
    return false;
  },
} as const;

/** The schema with the storable-date keyword beside every `format: "date-time"` (a copy). */
function withStorableDates(schema: unknown): object {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (typeof s !== 'object' || s === null) return s;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s))
      out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : walk(v);
    if (out.format === 'date-time') out['x-storable-date-time'] = true;
    return out;
  };
  return walk(schema) as object;
}
