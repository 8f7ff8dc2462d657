import { type ContractChange, diffContracts, type JsonSchema } from '@surety/events';

const TYPE = 'x';
/** A minimal AsyncAPI 3 document carrying one schema, as @surety/events' checker reads documents. */
const docOf = (schema: JsonSchema) => ({
  asyncapi: '3.0.0',
  info: { title: 'event type', version: '1.0.0' },
  components: { messages: { [TYPE]: { name: TYPE, payload: schema } } },
});

/**
 * The changes from one `data` schema to another, found by @surety/events' contract checker (the
 * one `surety-contracts check` runs on the service's own contract), with paths into `data`
 * (`/items/*\/sku`, `''` for the value itself).
 * @example
 * diffSchemas(v1, v2).filter((c) => c.breaking);
 */
export function diffSchemas(before: JsonSchema, after: JsonSchema): ContractChange[] {
  return diffContracts(docOf(before), docOf(after)).changes.map(({ eventType: _, ...c }) => ({
    ...c,
    path: c.path.replace(/^\/payload/, ''),
  }));
}
