/** The event envelope every webhook body carries: `@surety/core`'s, shared with `@surety/events`. */
export type { Envelope } from '@surety/core';

/**
 * The envelope's JSON, assembled the same way on every attempt from the stored columns, with `data`
 * embedded as the exact text that was published: every attempt and every replay sends the same bytes.
 */
export function envelopeJson(e: {
  id: string;
  type: string;
  apiVersion: string;
  createdAt: Date | string;
  sequence: string | number;
  data: string;
}): string {
  const createdAt = typeof e.createdAt === 'string' ? e.createdAt : e.createdAt.toISOString();
  return (
    `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"apiVersion":${JSON.stringify(e.apiVersion)},` +
    `"createdAt":${JSON.stringify(createdAt)},"sequence":${Number(e.sequence)},"data":${e.data}}`
  );
}
