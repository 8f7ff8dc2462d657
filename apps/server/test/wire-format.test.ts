// How @surety/webhooks and @surety/events meet in the service: what publish refuses, and that the exact bytes the
// delivery worker sends (envelopeJson) match the committed AsyncAPI document. No database or
// network: the transaction is a stub that fails the test if publish ever reaches it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import type { Sql } from '@surety/db';
import { contractValidator, isEventError } from '@surety/events';
import { envelopeJson, Webhooks } from '@surety/webhooks';
import { serviceEvents, serviceRegistry } from '../src/service-events.js';

const committed = JSON.parse(
  await readFile(new URL('../../../contracts/asyncapi.json', import.meta.url), 'utf8'),
) as unknown;
const registry = serviceRegistry();

describe('the wire format', () => {
  it('every sample, as the delivery worker renders it, matches the committed document', () => {
    const check = contractValidator(committed);
    for (const e of serviceEvents) {
      const body = envelopeJson({
        id: 'evt_4fKq9Zr2LmXc81TbWnY3sA',
        type: e.type,
        apiVersion: '2026-11-01',
        createdAt: new Date('2026-11-02T09:31:12.345Z'),
        sequence: '17', // bigint column, read as text
        data: JSON.stringify(e.sample),
      });
      const r = check(JSON.parse(body));
      assert.ok(r.ok, r.ok ? '' : `${e.type}: ${JSON.stringify(r.error.errors)}`);
    }
  });
});

describe('publish with the registry as its validate option', () => {
  const untouchable = {
    query: () => {
      throw new Error('publish reached the database');
    },
  };
  const webhooks = new Webhooks({ sql: untouchable as unknown as Sql, validate: registry.assertValid });

  it('refuses an invalid payload before anything is written, listing the paths', async () => {
    const data = { ...(serviceEvents[0]!.sample as object), amount: 1999 };
    await assert.rejects(
      webhooks.publish(untouchable as never, { tenant: 't', type: 'payment.created', data }),
      (e: unknown) =>
        isEventError(e) &&
        e.code === 'SURETY_EVENT_INVALID_PAYLOAD' &&
        JSON.stringify(e.errors) === JSON.stringify([{ path: '/amount', message: 'must be string' }]),
    );
  });

  it('refuses an unregistered type', async () => {
    await assert.rejects(
      webhooks.publish(untouchable as never, { tenant: 't', type: 'invoice.paid', data: {} }),
      {
        code: 'SURETY_EVENT_UNKNOWN_TYPE',
      },
    );
  });
});
