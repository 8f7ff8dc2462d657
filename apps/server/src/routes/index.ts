/**
 * What the service serves: each resource's routes, a plugin under its prefix, registered in the
 * order of the API document (/openapi.json lists them so). app.ts calls this once every hook the
 * routes need is in place.
 */
import type { EventRegistry } from '@surety/events';
import type { PollWaitsOptions } from '@surety/webhooks';
import type { FastifyInstance } from 'fastify';
import type { PortalData } from '../data/portal.js';
import type { PaymentOperation } from '../payments/operation.js';
import { applicationRoutes } from './applications.js';
import { contractRoutes } from './contract.js';
import { deliveryRoutes } from './deliveries.js';
import { endpointActionRoutes } from './endpoint-actions.js';
import { endpointPollRoutes } from './endpoint-poll.js';
import { eventTypeRoutes } from './event-types.js';
import { eventRoutes } from './events.js';
import { healthRoutes } from './health.js';
import { inventoryRoutes } from './inventory.js';
import { orderRoutes } from './orders.js';
import { paymentRoutes } from './payments.js';
import { portalRoutes } from './portal.js';
import { tenantContractRoutes } from './tenant-contract.js';
import { endpointRoutes } from './webhooks.js';

/** What the routes are given. */
export interface RoutesOptions {
  /** The PostgreSQL schema of the service's tables. */
  schema: string;
  /** The service's event registry (the contract routes' AsyncAPI document). */
  events: EventRegistry;
  /** The portal's sessions and settings. */
  portal: PortalData;
  /** The clock portal sessions are issued and expire by. */
  now: () => number;
  /** SURETY_PUBLIC_URL; unset: portal links are built from the request's Host. */
  publicUrl?: string | undefined;
  /** Whether POST /v1/payments requires an Idempotency-Key (off for a benchmark baseline only). */
  idempotentPayments: boolean;
  /** The phased operation behind POST /v1/payments. */
  paymentOperation: PaymentOperation;
  /** Poll endpoints' long-polls: the per-tenant cap on waits and the check interval. */
  pollWaits?: PollWaitsOptions;
}

/** Registers every route of the service on `app`. */
export async function registerRoutes(app: FastifyInstance, options: RoutesOptions): Promise<void> {
  const { schema, portal, now } = options;
  await app.register(contractRoutes, { events: options.events });
  await app.register(healthRoutes);
  await app.register(paymentRoutes, {
    prefix: '/v1/payments',
    schema,
    idempotent: options.idempotentPayments,
    operation: options.paymentOperation,
  });
  await app.register(orderRoutes, { prefix: '/v1/orders', schema });
  await app.register(inventoryRoutes, { prefix: '/v1/inventory', schema });
  await app.register(applicationRoutes, { prefix: '/v1/applications', portal, now });
  await app.register(endpointRoutes, { prefix: '/v1/webhook-endpoints' });
  await app.register(endpointActionRoutes, { prefix: '/v1/webhook-endpoints' });
  await app.register(endpointPollRoutes, {
    prefix: '/v1/webhook-endpoints',
    ...(options.pollWaits ? { waits: options.pollWaits } : {}),
  });
  await app.register(deliveryRoutes, { prefix: '/v1/deliveries' });
  await app.register(eventRoutes, { prefix: '/v1/events' });
  await app.register(portalRoutes, { data: portal, publicUrl: options.publicUrl, now });
  await app.register(eventTypeRoutes, { prefix: '/v1/event-types', schema });
  await app.register(tenantContractRoutes, { prefix: '/v1', schema });
}
