import { createHash, randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';

// The simulated payment provider (issue 32): a small Stripe-like HTTP API for demos and tests, never
// a real one. POST /v1/charges honours Idempotency-Key as Stripe does: the same key with the same
// parameters answers the stored result again (and charges nothing more); with other parameters it
// is a 400; while the first is being processed, a 409. It counts the charges per key and per
// `reference`, so a test can assert "charged exactly once". State is in memory.

/** Test payment methods (card numbers), as Stripe's test cards. */
export const TEST_CARDS = {
  succeeds: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  /** Charges, then answers 500 (a retry with the same key gets the stored success). */
  chargesThen500: '4000000000000500',
  /** Answers after `slowMs`. */
  slow: '4000000000000077',
  /** Never answers (until the simulator closes); charges nothing. */
  timesOut: '4000000000000119',
} as const;

export interface SimulatorOptions {
  /** Faults on any card, each a probability in [0, 1]: they make a chaos test. @default 0 */
  failAfterChargeRate?: number;
  /** Cuts the connection (before or after charging, at random). @default 0 */
  dropRate?: number;
  /** Answers after `slowMs`. @default 0 */
  slowRate?: number;
  /** @default 2000 */
  slowMs?: number;
  /** @default Math.random */
  random?: () => number;
}

export interface Charge {
  id: string;
  object: 'charge';
  amount: string;
  currency: string;
  reference: string | null;
  status: 'succeeded' | 'failed';
  declineCode: string | null;
}

interface Stored {
  params: string;
  status: number;
  body: string;
}

export interface Simulator {
  app: FastifyInstance;
  /** Charges made, per idempotency key (a key charges at most once, so each is 1). */
  chargesByKey: Map<string, number>;
  /** Successful charges per `reference` (the service sends its payment id): the money moved. */
  chargesByReference: Map<string, Charge[]>;
  /** Requests received, faults included. */
  requests: number;
}

const DECLINES: Record<string, string> = {
  [TEST_CARDS.declined]: 'generic_decline',
  [TEST_CARDS.insufficientFunds]: 'insufficient_funds',
};

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'paymentMethod'],
  properties: {
    amount: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    paymentMethod: { type: 'string', minLength: 1, maxLength: 64 },
    reference: { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const;

/** Builds the simulator (not listening). `surety psp` serves it; `npm start` runs it in-process. */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const random = options.random ?? Math.random;
  const chance = (p: number | undefined) => (p ?? 0) > 0 && random() < (p ?? 0);
  const slowMs = options.slowMs ?? 2000;
  const app = Fastify({ logger: false, bodyLimit: 16_384 });
  const stored = new Map<string, Stored>();
  const processing = new Set<string>();
  const hanging = new Set<() => void>();
  const sim: Simulator = { app, chargesByKey: new Map(), chargesByReference: new Map(), requests: 0 };
  app.addHook('onClose', async () => {
    for (const release of hanging) release();
  });
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        hanging.delete(done);
        resolve();
      }
      hanging.add(done);
    });

  app.post<{ Body: { amount: string; currency: string; paymentMethod: string; reference?: string } }>(
    '/v1/charges',
    { schema: { body: bodySchema } },
    async (request, reply) => {
      sim.requests++;
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string' || key.length === 0 || key.length > 255)
        return reply
          .code(400)
          .send({ error: { type: 'invalid_request_error', code: 'idempotency_key_missing' } });
      const params = createHash('sha256').update(JSON.stringify(request.body)).digest('hex');
      const before = stored.get(key);
      if (before) {
        if (before.params !== params)
          return reply
            .code(400)
            .send({ error: { type: 'idempotency_error', code: 'idempotency_key_reused' } });
        if (chance(options.slowRate)) await wait(slowMs);
        return reply
          .code(before.status)
          .header('idempotent-replayed', 'true')
          .type('application/json')
          .send(before.body);
      }
      if (processing.has(key))
        return reply.code(409).send({ error: { type: 'idempotency_error', code: 'request_in_progress' } });
      const { amount, currency, paymentMethod, reference } = request.body;
      if (paymentMethod === TEST_CARDS.timesOut) {
        await wait(3_600_000);
        request.raw.socket.destroy();
        return reply;
      }
      const cutBefore = chance((options.dropRate ?? 0) / 2);
      if (cutBefore) {
        request.raw.socket.destroy();
        return reply;
      }
      processing.add(key);
      try {
        if (paymentMethod === TEST_CARDS.slow || chance(options.slowRate)) await wait(slowMs);
        const declineCode = DECLINES[paymentMethod] ?? null;
        const charge: Charge = {
          id: `ch_${randomBytes(12).toString('hex')}`,
          object: 'charge',
          amount,
          currency,
          reference: reference ?? null,
          status: declineCode ? 'failed' : 'succeeded',
          declineCode,
        };
        const status = declineCode ? 402 : 200;
        const body = JSON.stringify(
          declineCode
            ? {
                error: {
                  type: 'card_error',
                  code: 'card_declined',
                  decline_code: declineCode,
                  charge: charge.id,
                },
              }
            : charge,
        );
        stored.set(key, { params, status, body });
        if (!declineCode) {
          sim.chargesByKey.set(key, (sim.chargesByKey.get(key) ?? 0) + 1);
          if (reference)
            sim.chargesByReference.set(reference, [...(sim.chargesByReference.get(reference) ?? []), charge]);
        }
        // The charge is made and stored: the faults below lose only its answer.
        if (paymentMethod === TEST_CARDS.chargesThen500 || chance(options.failAfterChargeRate))
          return reply.code(500).send({ error: { type: 'api_error', code: 'internal_error' } });
        if (chance((options.dropRate ?? 0) / 2)) {
          request.raw.socket.destroy();
          return reply;
        }
        return reply.code(status).type('application/json').send(body);
      } finally {
        processing.delete(key);
      }
    },
  );

  app.get('/v1/health', async () => ({ status: 'ok', simulated: true }));
  return sim;
}
