import { formatDelay, DEFAULT_RETRY_SCHEDULE as SCHEDULE_SECONDS } from '@surety/core';
import { stringify } from 'yaml';
import { type EventEnvelope, envelopeSchema, webhookHeadersSchema } from './envelope.js';
import type { RegisteredEvent } from './event-definition.js';
import { cloneJson } from './json-schema.js';
import type { EventRegistry } from './registry.js';

/**
 * The default retry schedule of `@surety/webhooks`, after the first attempt, as described in the document
 * (`@surety/core`'s `DEFAULT_RETRY_SCHEDULE` as text: 5s, 5m, 30m, 2h, 6h, 12h, 24h).
 * @example
 * buildAsyncApi(registry, { retrySchedule: process.env.SURETY_WEBHOOK_RETRY_SCHEDULE?.split(',') });
 */
export const DEFAULT_RETRY_SCHEDULE: readonly string[] = SCHEDULE_SECONDS.map(formatDelay);

/**
 * The AsyncAPI channel every event goes through: the customer's endpoint URL.
 * @example
 * doc.channels[WEBHOOK_CHANNEL].messages['order.shipped']
 */
export const WEBHOOK_CHANNEL = 'webhooks';

/**
 * Options of `buildAsyncApi()`; every one has a default.
 * @example
 * buildAsyncApi(registry, { title: 'Acme webhooks', version: '2.0.0', serverUrl: 'https://api.acme.test' });
 */
export interface AsyncApiOptions {
  /** `info.title`. @default "Surety webhooks" */
  title?: string;
  /**
   * `info.version`, semver. Raise the major version for a breaking change: the committed contract
   * check (`surety-contracts check`) refuses a breaking change under the same major.
   * @default SERVICE_CONTRACT_VERSION
   */
  version?: string;
  /** Markdown placed above the delivery semantics in `info.description`. @default "" */
  description?: string;
  /**
   * Base URL of the Surety service that sends the events; becomes `info.externalDocs` (its API
   * docs, where endpoints are registered and deliveries replayed). Leave unset for a document that
   * does not depend on the deployment (the committed contract).
   * @default undefined
   */
  serverUrl?: string;
  /** `apiVersion` shown in the message examples. @default "2026-11-01" */
  apiVersion?: string;
  /** The retry schedule described in the document (`SURETY_WEBHOOK_RETRY_SCHEDULE`). @default DEFAULT_RETRY_SCHEDULE */
  retrySchedule?: readonly string[];
}

/**
 * The contract version of the service's events (`info.version` of the committed
 * `contracts/asyncapi.json`). Raise the major for a breaking change, the minor for an additive one.
 * @example
 * serviceContract(registry).info.version === SERVICE_CONTRACT_VERSION; // true
 */
export const SERVICE_CONTRACT_VERSION = '1.0.0';

/**
 * A loose AsyncAPI 3.0 document type: enough structure to read, plain JSON underneath.
 * @example
 * const doc: AsyncApiDocument = buildAsyncApi(registry);
 */
export interface AsyncApiDocument {
  asyncapi: string;
  info: { title: string; version: string; description?: string; [k: string]: unknown };
  channels?: Record<string, unknown>;
  operations?: Record<string, unknown>;
  components?: {
    messages?: Record<string, unknown>;
    schemas?: Record<string, unknown>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

const titleOf = (type: string): string => {
  const words = type.replaceAll('_', ' ').split('.').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** The first sentence of a description (up to the first ". "), for summaries. */
const firstSentence = (text: string): string => {
  const m = /^(.+?[.!?])(\s|$)/s.exec(text);
  return (m ? m[1]! : text).replaceAll(/\s+/g, ' ');
};

function semantics(schedule: readonly string[]): string {
  return [
    '## Delivery',
    '',
    'Each event is sent as an HTTP `POST` with a JSON body (the envelope below, `data` depending on `type`) to every enabled endpoint subscribed to its type. A delivery succeeds when the endpoint answers 2xx within the timeout; answer fast and do the work afterwards.',
    '',
    '- **At least once.** The same event can arrive more than once (a retry after a timeout whose request did arrive, a replay). De-duplicate on the event `id` (also the `webhook-id` header): record the ids you have processed, in the same transaction as the work they cause.',
    '- **Unordered** unless the endpoint is in ordered mode. Retries and concurrent workers mean a later event can arrive before an earlier one. `sequence` increases with every event about the same resource (gaps are allowed): ignore an event older than the last one you applied for that resource, or fetch the resource. In ordered mode an endpoint gets one delivery at a time, in publication order; a replay can still bring an old event back.',
    `- **Retried for days.** After a failed attempt: ${schedule.join(', ')} (jitter only ever adds delay; configurable per deployment and per endpoint), then the delivery fails. 410 Gone, or failing for days, disables the endpoint (\`endpoint.disabled\`). Failed deliveries can be replayed.`,
    '- **Signed.** Verify `webhook-signature` over the raw body bytes and check `webhook-timestamp` is recent before you parse anything (`@surety/webhook-verify` does both, and de-duplicates).',
    '- **Evolving.** New event types, new optional fields and new enum values are added without notice: ignore what you do not know. Anything else is a breaking change and comes with a new major `info.version`.',
  ].join('\n');
}

function message(e: RegisteredEvent, apiVersion: string): Record<string, unknown> {
  const sample: EventEnvelope = {
    id: 'evt_4fKq9Zr2LmXc81TbWnY3sA',
    type: e.type,
    apiVersion,
    createdAt: '2026-11-02T09:31:12.345Z',
    sequence: 42,
    data: cloneJson(e.sample),
  };
  return {
    name: e.type,
    title: titleOf(e.type),
    summary: firstSentence(e.description),
    description: e.description,
    contentType: 'application/json',
    headers: { $ref: '#/components/schemas/WebhookHeaders' },
    payload: envelopeSchema(e.type, cloneJson(e.schema)),
    examples: [
      {
        name: 'sample',
        summary: `A ${e.type} event`,
        headers: {
          'webhook-id': sample.id,
          'webhook-timestamp': '1793611872',
          'webhook-signature':
            't=1793611872,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
          'content-type': 'application/json',
        },
        payload: sample,
      },
    ],
    ...(e.deprecated ? { deprecated: true } : {}),
    ...(e.reserved
      ? {
          tags: [
            {
              name: 'reserved',
              description:
                'An operational event: published only by the service, about its own delivery machinery (never by a tenant; never to the endpoint it is about).',
            },
          ],
          'x-surety-reserved': true,
        }
      : {}),
    'x-surety-version': e.version,
  };
}

/**
 * The AsyncAPI 3.0 document of every type in the registry (or in a list of registered types,
 * sorted here by name): one channel (your endpoint URL, so
 * `address: null`) carrying one message per event type, one `send` operation per type, the
 * signature headers, and the delivery semantics in `info.description`. Each message's payload is
 * the whole body: the envelope with `type` fixed and `data` set to the type's schema. No `$ref`
 * except to the shared headers schema. Deterministic: the same registry gives the same document.
 * @example
 * const doc = buildAsyncApi(createRegistry({ events }), { title: 'Acme webhooks', version: '2.1.0' });
 * reply.send(doc); // /asyncapi.json
 */
export function buildAsyncApi(
  registry: EventRegistry | readonly RegisteredEvent[],
  options: AsyncApiOptions = {},
): AsyncApiDocument {
  const title = options.title ?? 'Surety webhooks';
  const version = options.version ?? SERVICE_CONTRACT_VERSION;
  const apiVersion = options.apiVersion ?? '2026-11-01';
  const schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
  // A list of definitions needs no compiled validators: a service can describe types it stored
  // (already checked) without compiling them again for every document.
  const events = Array.isArray(registry)
    ? [...(registry as readonly RegisteredEvent[])].sort((a, b) =>
        a.type < b.type ? -1 : a.type > b.type ? 1 : 0,
      )
    : (registry as EventRegistry).list();
  const intro = options.description?.trim();
  const info: AsyncApiDocument['info'] = {
    title,
    version,
    description: `${intro ? `${intro}\n\n` : ''}${semantics(schedule)}`,
  };
  if (options.serverUrl !== undefined) {
    const base = new URL(options.serverUrl);
    info.externalDocs = {
      description: 'The management API: register endpoints, rotate secrets, list attempts, replay events.',
      url: new URL('docs', base.href.endsWith('/') ? base.href : `${base.href}/`).href,
    };
  }
  const messages: Record<string, unknown> = {};
  const channelMessages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const e of events) {
    messages[e.type] = message(e, apiVersion);
    channelMessages[e.type] = { $ref: `#/components/messages/${e.type}` };
    operations[e.type] = {
      action: 'send',
      channel: { $ref: `#/channels/${WEBHOOK_CHANNEL}` },
      title: `Send ${e.type}`,
      summary: firstSentence(e.description),
      messages: [{ $ref: `#/channels/${WEBHOOK_CHANNEL}/messages/${e.type}` }],
      bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
    };
  }
  return {
    asyncapi: '3.0.0',
    info,
    defaultContentType: 'application/json',
    channels: {
      [WEBHOOK_CHANNEL]: {
        address: null,
        title: 'Your webhook endpoint',
        description:
          'The HTTPS URL you registered as a webhook endpoint. It receives every event type it is subscribed to, so tell them apart by the `type` field of the body.',
        messages: channelMessages,
      },
    },
    operations,
    components: {
      schemas: { WebhookHeaders: webhookHeadersSchema() },
      messages,
    },
  };
}

/**
 * The service's own contract: `buildAsyncApi` with `SERVICE_CONTRACT_VERSION` and no deployment
 * specifics, as committed in `contracts/asyncapi.json`. Pass `serverUrl` etc. when serving it.
 * @example
 * app.get('/asyncapi.json', () => serviceContract(registry, { serverUrl: config.publicUrl }));
 */
export function serviceContract(
  registry: EventRegistry | readonly RegisteredEvent[],
  options: AsyncApiOptions = {},
): AsyncApiDocument {
  return buildAsyncApi(registry, { title: 'Surety webhooks', version: SERVICE_CONTRACT_VERSION, ...options });
}

/**
 * YAML text of a document (for `/asyncapi.yaml`), with no anchors or aliases so that any parser reads it.
 * @example
 * reply.type('application/yaml').send(toYaml(doc));
 */
export function toYaml(doc: unknown): string {
  return stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/**
 * JSON text of a document, two-space indented with a final newline (the committed file's format).
 * @example
 * await writeFile('contracts/asyncapi.json', toJson(doc));
 */
export function toJson(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
