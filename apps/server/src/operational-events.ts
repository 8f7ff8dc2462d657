// The service's operational events (issue 37): what it tells a tenant about its own endpoints.
// Reserved: listed in the catalogue and the AsyncAPI document, published only by the service.
import type { EventDefinition } from '@surety/events';
import { dateTime, prefixedId } from './event-schema-parts.js';

/** The two backlog events: the same fields, told from either edge. */
function backlogEvent(e: {
  type: string;
  description: string;
  endpoint: string;
  threshold: string;
  sample: { pendingDeliveries: number; at: string };
}): EventDefinition {
  return {
    type: e.type,
    reserved: true,
    description: e.description,
    schema: {
      type: 'object',
      required: ['endpointId', 'url', 'pendingDeliveries', 'threshold', 'at'],
      properties: {
        endpointId: prefixedId('we', e.endpoint),
        url: { type: 'string', description: 'Its URL.' },
        pendingDeliveries: {
          type: 'integer',
          minimum: 0,
          description: 'Its pending deliveries when measured.',
        },
        threshold: { type: 'integer', minimum: 1, description: e.threshold },
        at: dateTime('When it was measured.'),
      },
    },
    sample: {
      endpointId: 'we_LmXc81TbWnY3sA4fKq9Zr2',
      url: 'https://hooks.example.com/surety',
      pendingDeliveries: e.sample.pendingDeliveries,
      threshold: 1000,
      at: e.sample.at,
    },
  };
}

/** In the catalogue after `endpoint.disabled`, in this order. */
export const operationalEvents: readonly EventDefinition[] = [
  {
    type: 'endpoint.circuit_opened',
    reserved: true,
    description:
      'One of your webhook endpoints failed attempts in a row and its circuit breaker opened: its pending deliveries wait behind one probe attempt at `nextProbeAt` (they spend no attempts meanwhile). Announced at most once per 10 minutes per endpoint (a flapping breaker is quiet), never to the endpoint it is about. An operational event: reserved, published only by the service.',
    schema: {
      type: 'object',
      required: ['endpointId', 'url', 'openedAt', 'consecutiveFailures', 'nextProbeAt', 'heldDeliveries'],
      properties: {
        endpointId: prefixedId('we', 'The endpoint whose breaker opened.'),
        url: { type: 'string', description: 'Its URL.' },
        openedAt: dateTime('When the breaker opened.'),
        consecutiveFailures: { type: 'integer', minimum: 1, description: 'Failed attempts in a row.' },
        nextProbeAt: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'When the probe attempt is due.',
        },
        heldDeliveries: {
          type: 'integer',
          minimum: 0,
          description: 'Pending deliveries moved behind the probe.',
        },
      },
    },
    sample: {
      endpointId: 'we_LmXc81TbWnY3sA4fKq9Zr2',
      url: 'https://hooks.example.com/surety',
      openedAt: '2026-11-04T02:00:00.000Z',
      consecutiveFailures: 10,
      nextProbeAt: '2026-11-04T02:00:05.000Z',
      heldDeliveries: 42,
    },
  },
  {
    type: 'endpoint.circuit_closed',
    reserved: true,
    description:
      'A probe attempt to one of your webhook endpoints succeeded and its circuit breaker closed: its held deliveries are due at once. Sent only after an announced `endpoint.circuit_opened`, never to the endpoint it is about. An operational event: reserved, published only by the service.',
    schema: {
      type: 'object',
      required: ['endpointId', 'url', 'closedAt', 'releasedDeliveries'],
      properties: {
        endpointId: prefixedId('we', 'The endpoint whose breaker closed.'),
        url: { type: 'string', description: 'Its URL.' },
        closedAt: dateTime('When the breaker closed.'),
        releasedDeliveries: { type: 'integer', minimum: 0, description: 'Held deliveries made due at once.' },
      },
    },
    sample: {
      endpointId: 'we_LmXc81TbWnY3sA4fKq9Zr2',
      url: 'https://hooks.example.com/surety',
      closedAt: '2026-11-04T02:05:00.000Z',
      releasedDeliveries: 42,
    },
  },
  backlogEvent({
    type: 'endpoint.backlog_exceeded',
    description:
      'One of your webhook endpoints has `threshold` or more pending deliveries (`SURETY_WEBHOOK_BACKLOG_THRESHOLD`). Edge-triggered: announced once, then `endpoint.backlog_cleared` when the backlog falls to half the threshold. Never sent to the endpoint it is about. An operational event: reserved, published only by the service.',
    endpoint: 'The endpoint with the backlog.',
    threshold: 'The threshold it crossed.',
    sample: { pendingDeliveries: 1204, at: '2026-11-04T02:00:30.000Z' },
  }),
  backlogEvent({
    type: 'endpoint.backlog_cleared',
    description:
      'The backlog announced by `endpoint.backlog_exceeded` fell to half its threshold or less. Never sent to the endpoint it is about. An operational event: reserved, published only by the service.',
    endpoint: 'The endpoint whose backlog cleared.',
    threshold: 'The threshold it had crossed.',
    sample: { pendingDeliveries: 12, at: '2026-11-04T02:10:30.000Z' },
  }),
  {
    type: 'endpoint.secret_expiring',
    reserved: true,
    description:
      'A rotated-out signing secret of one of your webhook endpoints stops signing within the hour: receivers that still verify with it only must switch to the current secret. Announced once per expiry, never to the endpoint it is about. An operational event: reserved, published only by the service.',
    schema: {
      type: 'object',
      required: ['endpointId', 'url', 'expiresAt'],
      properties: {
        endpointId: prefixedId('we', 'The endpoint whose secret expires.'),
        url: { type: 'string', description: 'Its URL.' },
        expiresAt: dateTime('When the old secret stops signing.'),
      },
    },
    sample: {
      endpointId: 'we_LmXc81TbWnY3sA4fKq9Zr2',
      url: 'https://hooks.example.com/surety',
      expiresAt: '2026-11-05T02:00:00.000Z',
    },
  },
  {
    type: 'delivery.failed',
    reserved: true,
    description:
      'A delivery to one of your webhook endpoints failed for good: its retry schedule is exhausted (or the endpoint answered 410 Gone). Replay the event once the endpoint is fixed. Not sent for deliveries failed by disabling an endpoint (see `endpoint.disabled`), never to the endpoint it is about, and never about the delivery of an operational event. An operational event: reserved, published only by the service.',
    schema: {
      type: 'object',
      required: [
        'endpointId',
        'deliveryId',
        'eventId',
        'eventType',
        'attempts',
        'lastStatus',
        'lastError',
        'failedAt',
      ],
      properties: {
        endpointId: prefixedId('we', 'The endpoint the delivery was for.'),
        deliveryId: prefixedId('dlv', 'The failed delivery.'),
        eventId: { type: 'string', description: 'The event it carried.' },
        eventType: { type: 'string', description: 'Its type.' },
        attempts: { type: 'integer', minimum: 1, description: 'Attempts made.' },
        lastStatus: {
          type: ['integer', 'null'],
          description: "The last attempt's HTTP status; null without an answer.",
        },
        lastError: {
          type: ['string', 'null'],
          description: "The last attempt's error code (`http_500`, `timeout`, …).",
        },
        failedAt: dateTime('When the last attempt started.'),
      },
    },
    sample: {
      endpointId: 'we_LmXc81TbWnY3sA4fKq9Zr2',
      deliveryId: 'dlv_0Vcl4GR68ohtVWICrcqB6k',
      eventId: 'evt_4fKq9Zr2LmXc81TbWnY3sA',
      eventType: 'order.shipped',
      attempts: 8,
      lastStatus: 500,
      lastError: 'http_500',
      failedAt: '2026-11-06T00:00:00.000Z',
    },
  },
];
