/** The JSON Schemas of the webhook endpoint routes (rendered into /openapi.json) and their answer's shape. */
import type { Endpoint } from '@surety/webhooks';
import { EVENT_TYPE_PATTERN } from './schemas.js';

// Any id-shaped value: one that names nothing is a 404, like one of another tenant.
export const ENDPOINT_ID = '^[0-9A-Za-z_]{1,64}$';

const eventTypes = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  items: {
    anyOf: [
      { type: 'string', const: '*' },
      { type: 'string', pattern: EVENT_TYPE_PATTERN },
    ],
  },
} as const;

export const editable = {
  url: {
    type: 'string',
    minLength: 1,
    maxLength: 2048,
    description:
      "A webhook's https URL, or a broker's: `amqps://host[:port]/vhost`, `tls://host:4222` (NATS), " +
      '`mqtts://host[:port]` (plain `amqp:`, `nats:`, `mqtt:` where plain http is allowed). User info in a ' +
      'broker URL is taken out and kept as the credentials. The host is checked like a webhook URL (SSRF). ' +
      'None for a poll endpoint (its consumer reads from the API; its url is `""`).',
  },
  destination: {
    type: 'object',
    additionalProperties: false,
    maxProperties: 2,
    properties: {
      exchange: {
        type: 'string',
        maxLength: 255,
        description: 'amqp: the exchange published to (`""`: the default exchange).',
      },
      routingKey: {
        type: 'string',
        maxLength: 255,
        description: 'amqp: the routing key; `{type}` is the event type. Default `{type}`.',
      },
      subject: {
        type: 'string',
        maxLength: 255,
        description: 'nats: the subject (a JetStream stream must capture it); `{type}` is the event type.',
      },
      topic: { type: 'string', maxLength: 255, description: 'mqtt: the topic; `{type}` is the event type.' },
      qos: { type: 'integer', const: 1, description: 'mqtt: QoS 1 (the PUBACK confirms).' },
    },
    description:
      "A broker endpoint's settings (amqp: exchange, routingKey; nats: subject; mqtt: topic, qos).",
  },
  credentials: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['username', 'password'],
    properties: {
      username: { type: 'string', maxLength: 1024 },
      password: { type: 'string', maxLength: 4096 },
    },
    description:
      "A broker endpoint's credentials; never returned (the answer shows the password as `[redacted]`). null removes them.",
  },
  auth: {
    type: ['object', 'null'],
    description:
      'How the receiver authenticates the sender (webhook endpoints only; docs/receiver-auth.md). ' +
      '`{"type":"basic","username","password"}`: an Authorization: Basic header on every attempt. ' +
      '`{"type":"oauth2","tokenUrl","clientId","clientSecret","scope"?,"audience"?,"clientAuth"?}`: a ' +
      'client-credentials token fetched from tokenUrl (checked like a webhook URL, and through the SSRF ' +
      'guard at every request), cached until shortly before it expires, dropped when the receiver ' +
      'answers 401; a failure is an attempt recorded as `auth_token_failed`. ' +
      '`{"type":"mtls","certificate","privateKey","ca"?}` (PEM): the TLS client identity; the key must ' +
      'match the certificate and not be encrypted. Secrets (password, clientSecret, privateKey) are ' +
      'never returned. On update the whole auth is replaced (null removes it); deliveries already sent ' +
      'finish with the old one. Anything that cannot be used: 422 `invalid_webhook_auth`.',
    required: ['type'],
    properties: {
      type: { type: 'string', enum: ['basic', 'oauth2', 'mtls'] },
      username: { type: 'string', maxLength: 256 },
      password: { type: 'string', maxLength: 1024 },
      tokenUrl: { type: 'string', maxLength: 2048 },
      clientId: { type: 'string', maxLength: 256 },
      clientSecret: { type: 'string', maxLength: 1024 },
      scope: { type: ['string', 'null'], maxLength: 1024 },
      audience: { type: ['string', 'null'], maxLength: 1024 },
      clientAuth: { type: 'string', enum: ['basic', 'body'] },
      certificate: { type: 'string', maxLength: 16_384 },
      privateKey: { type: 'string', maxLength: 16_384 },
      ca: { type: ['string', 'null'], maxLength: 65_536 },
    },
    additionalProperties: false,
  },
  description: { type: 'string', maxLength: 500 },
  eventTypes,
  format: { type: 'string', enum: ['surety', 'standard'] },
  retrySchedule: {
    type: ['array', 'null'],
    minItems: 1,
    maxItems: 50,
    items: { type: 'integer', minimum: 1, maximum: 604_800 },
    description: 'Seconds after the first attempt; null uses the service default.',
  },
  rateLimit: {
    type: ['integer', 'null'],
    minimum: 1,
    maximum: 10_000,
    description: 'Deliveries per second.',
  },
  ordered: { type: 'boolean', description: 'One delivery in flight at a time, in sequence order.' },
  traceContext: {
    type: 'boolean',
    description:
      "Send the attempt's W3C traceparent to the receiver (when tracing is configured). Default true.",
  },
  headers: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Custom headers sent with every delivery attempt, `{ name: value }`; on update the whole set is ' +
      'replaced (`{}` removes them). At most 20, names up to 100 characters (RFC 9110 tokens, ' +
      'case-insensitive, each once), values up to 1000 characters of visible ASCII with inner spaces ' +
      'or tabs, 4096 bytes in all. Reserved names are refused with 422 `invalid_webhook_headers`: ' +
      'webhook-id, webhook-timestamp, webhook-signature (and any webhook-*, surety-* or proxy-* name), ' +
      'content-type, user-agent, traceparent, tracestate, baggage, host, content-length, ' +
      'content-encoding, connection, transfer-encoding, keep-alive, upgrade, te, trailer, expect, ' +
      'http2-settings. Values are stored in plain text and returned with the endpoint; they are not signed.',
  },
  filter: {
    type: ['object', 'null'],
    additionalProperties: true,
    description:
      'Only events passing this filter are delivered; null (the default) delivers every event of the ' +
      "endpoint's event types. Keys are paths into the event, starting with `type`, `resource` or " +
      '`data` (`data.customer.country`), or `$and`, `$or`, `$not`; a path takes a value (equality) or ' +
      'operators: `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte` (numbers), `$in`, `$nin`, `$exists`, ' +
      '`$not`. Example: `{"data.amount": {"$gte": 100}, "data.currency": {"$in": ["EUR", "GBP"]}}`. ' +
      'At most 6 levels deep, 50 keys or items per object or array, 200 conditions and values, ' +
      'strings of 256 characters, paths of 8 segments, 16384 bytes; beyond, or for an unknown ' +
      'operator, 422 `invalid_webhook_filter`. A test event reaches the endpoint whatever its filter. ' +
      'See docs/webhooks.md, "Payload filters".',
  },
} as const;

export const endpointSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'webhook_endpoint' },
    applicationId: {
      type: ['string', 'null'],
      description: 'The application it belongs to (`app_…`); null for one of your own.',
    },
    url: { type: 'string' },
    kind: { type: 'string', enum: ['webhook', 'amqp', 'nats', 'mqtt', 'poll'] },
    destination: {
      type: ['object', 'null'],
      properties: {
        exchange: { type: 'string' },
        routingKey: { type: 'string' },
        subject: { type: 'string' },
        topic: { type: 'string' },
        qos: { type: 'integer' },
      },
    },
    credentials: {
      type: ['object', 'null'],
      properties: { username: { type: 'string' }, password: { type: 'string', const: '[redacted]' } },
    },
    auth: {
      type: ['object', 'null'],
      description:
        'The receiver authentication, redacted: basic `{type, username}`, oauth2 `{type, tokenUrl, ' +
        'clientId, scope, audience, clientAuth}`, mtls `{type, certificateFingerprint, notAfter, subject}`.',
      properties: {
        type: { type: 'string', enum: ['basic', 'oauth2', 'mtls'] },
        username: { type: 'string' },
        tokenUrl: { type: 'string' },
        clientId: { type: 'string' },
        scope: { type: ['string', 'null'] },
        audience: { type: ['string', 'null'] },
        clientAuth: { type: 'string' },
        certificateFingerprint: { type: 'string' },
        notAfter: { type: 'string' },
        subject: { type: 'string' },
      },
    },
    description: { type: 'string' },
    eventTypes: { type: 'array', items: { type: 'string' } },
    format: { type: 'string' },
    status: { type: 'string', enum: ['enabled', 'disabled'] },
    disabledReason: { type: ['string', 'null'] },
    disabledAt: { type: ['string', 'null'] },
    retrySchedule: { type: ['array', 'null'], items: { type: 'integer' } },
    rateLimit: { type: ['integer', 'null'] },
    ordered: { type: 'boolean' },
    traceContext: { type: 'boolean' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    filter: { type: ['object', 'null'], additionalProperties: true },
    version: { type: 'integer' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    lastSuccessAt: { type: ['string', 'null'] },
    lastFailureAt: { type: ['string', 'null'] },
    failingSince: { type: ['string', 'null'] },
    circuit: {
      type: 'object',
      description:
        'The circuit breaker: after consecutive failed attempts it opens and every pending delivery waits ' +
        'behind one probe attempt at nextProbeAt (half_open once it is due); a successful probe closes it.',
      properties: {
        state: { type: 'string', enum: ['closed', 'open', 'half_open'] },
        consecutiveFailures: { type: 'integer' },
        openedAt: { type: ['string', 'null'] },
        nextProbeAt: { type: ['string', 'null'] },
      },
    },
    throttle: {
      type: 'object',
      description:
        'Adaptive throttling: after a 429 or 503 (or answers slower than usual) the in-flight cap and ' +
        'the rate are lowered and grow back each second (inFlightCap, rate as of this answer); 429/503 ' +
        "answers do not spend the deliveries' attempts; a Retry-After pauses the endpoint until " +
        'pausedUntil. See docs/webhooks.md, "Adaptive throttling".',
      properties: {
        state: { type: 'string', enum: ['none', 'throttled', 'paused'] },
        inFlightCap: { type: ['integer', 'null'] },
        rate: { type: ['number', 'null'] },
        since: { type: ['string', 'null'] },
        until: { type: ['string', 'null'] },
        pausedUntil: { type: ['string', 'null'] },
        decreases: { type: 'integer' },
      },
    },
    health: {
      type: 'object',
      properties: {
        attempts24h: { type: 'integer' },
        successRate24h: { type: ['number', 'null'] },
        pendingDeliveries: { type: 'integer' },
      },
    },
    secret: {
      type: 'string',
      description:
        'The whsec_ signing secret, only in the answer to creation and rotation: store it now. The two ' +
        'formats use it in opposite ways: `surety` (the default) uses the whole string, whsec_ included, ' +
        'as the HMAC-SHA256 key; `standard` (Standard Webhooks) base64-decodes what follows whsec_ and ' +
        'uses those bytes as the key. See docs/webhooks.md for a verifier of each.',
    },
  },
} as const;

export const present = (e: Endpoint, extra: Record<string, unknown> = {}) => ({
  ...e,
  object: 'webhook_endpoint',
  ...extra,
});
