// Verify throughput: @surety/webhook-verify against the `standardwebhooks` package and Stripe's
// `stripe.webhooks.constructEvent`, same payloads, same process, interleaved rounds.
// Every contestant does the same work per operation: parse the headers, check the timestamp
// against the clock, HMAC-SHA256 the raw body, compare, and JSON.parse the body (both peers
// return the parsed event, so ours is followed by JSON.parse too).
// Nothing here opens a socket: Stripe's client is constructed with a dummy key and never called.
//
// Usage: node --conditions=@surety/source --import tsx bench/verify/run.ts [--seconds 1] [--rounds 5]
import { availableParallelism, cpus } from 'node:os';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { createVerifier, sign } from '../../packages/webhook-verify/src/index.js';
import { emitResult, type Ratio } from '../lib/result.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 1);
const ROUNDS = arg('rounds', 5);

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const stripe = new Stripe('sk_test_bench_not_a_key');

const EVENT_ID = 'evt_2bRm3nXc8Vd1Kq9Lp0Zy';

function payload(bytes: number): string {
  const items: { sku: string; qty: number; price: number; note: string }[] = [];
  const event = {
    id: EVENT_ID,
    object: 'event',
    type: 'order.shipped',
    created: 1700000000,
    data: { object: { id: 'ord_42', items } },
  };
  let i = 0;
  while (JSON.stringify(event).length < bytes) {
    items.push({ sku: `sku_${i}`, qty: (i % 5) + 1, price: 1000 + i, note: 'café ☕ ships in a box' });
    i++;
  }
  return JSON.stringify(event);
}

type Op = () => unknown;
interface Contestant {
  name: string;
  op: Op;
  async: boolean;
}

async function measure(c: Contestant, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let ops = 0;
  const start = performance.now();
  // Check the clock every 256 operations so reading it costs nothing measurable.
  if (c.async) {
    while (performance.now() < end) for (let i = 0; i < 256; i++, ops++) await c.op();
  } else {
    while (performance.now() < end) for (let i = 0; i < 256; i++, ops++) c.op();
  }
  return ops / ((performance.now() - start) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function bench(size: number) {
  const body = payload(size);
  const now = Math.floor(Date.now() / 1000);
  // The event's own id, as a real sender sends it (the Surety scheme checks it against the body's).
  const standardHeaders = await sign({
    id: EVENT_ID,
    body,
    secrets: SECRET,
    format: 'standard',
    timestamp: now,
  });
  const suretyHeaders = await sign({
    id: EVENT_ID,
    body,
    secrets: SECRET,
    format: 'surety',
    timestamp: now,
  });
  const stripeHeader = stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: SECRET,
    timestamp: now,
  });

  const verifier = createVerifier({ secrets: SECRET });
  const standardLib = new Webhook(SECRET);

  const contestants: Contestant[] = [
    {
      name: 'surety verifySync, Standard Webhooks headers',
      op: () => {
        verifier.verifySync(body, standardHeaders);
        return JSON.parse(body);
      },
      async: false,
    },
    {
      name: 'surety verify (async), Standard Webhooks headers',
      op: async () => {
        await verifier.verify(body, standardHeaders);
        return JSON.parse(body);
      },
      async: true,
    },
    {
      name: 'standardwebhooks Webhook#verify',
      op: () => standardLib.verify(body, standardHeaders),
      async: false,
    },
    {
      name: 'surety verifySync, Surety headers',
      op: () => {
        verifier.verifySync(body, suretyHeaders);
        return JSON.parse(body);
      },
      async: false,
    },
    {
      name: 'surety verify (async), Surety headers',
      op: async () => {
        await verifier.verify(body, suretyHeaders);
        return JSON.parse(body);
      },
      async: true,
    },
    {
      name: 'surety verifySync only (no JSON.parse), Surety headers',
      op: () => verifier.verifySync(body, suretyHeaders),
      async: false,
    },
    {
      name: 'stripe webhooks.signature.verifyHeader (no JSON.parse)',
      op: () => stripe.webhooks.signature!.verifyHeader(body, stripeHeader, SECRET),
      async: false,
    },
    {
      name: 'stripe webhooks.constructEvent',
      op: () => stripe.webhooks.constructEvent(body, stripeHeader, SECRET),
      async: false,
    },
  ];

  // Each must accept the genuine webhook and refuse a tampered one before it is timed.
  const tampered = `${body} `;
  verifier.verifySync(body, standardHeaders);
  standardLib.verify(body, standardHeaders);
  stripe.webhooks.constructEvent(body, stripeHeader, SECRET);
  for (const refuse of [
    () => verifier.verifySync(tampered, suretyHeaders),
    () => standardLib.verify(tampered, standardHeaders),
    () => stripe.webhooks.constructEvent(tampered, stripeHeader, SECRET),
  ]) {
    let threw = false;
    try {
      refuse();
    } catch {
      threw = true;
    }
    if (!threw) throw new Error('a contestant accepted a tampered body');
  }

  for (const c of contestants) await measure(c, 0.3); // warm-up: JIT and key caches
  const samples = new Map<string, number[]>(contestants.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of contestants) samples.get(c.name)!.push(await measure(c, SECONDS));
  }
  const opsPerSec = new Map([...samples].map(([name, xs]) => [name, median(xs)]));
  return { bytes: Buffer.byteLength(body), opsPerSec };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(
  `node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores; ` +
    `${ROUNDS} rounds of ${SECONDS}s per contestant, median ops/s\n`,
);
const ratios: Ratio[] = [];
for (const size of [256, 2048, 65536]) {
  const { bytes, opsPerSec } = await bench(size);
  const get = (name: string) => opsPerSec.get(name)!;
  ratios.push(
    {
      name: `verify.vs_standardwebhooks.${size}`,
      value: get('surety verifySync, Standard Webhooks headers') / get('standardwebhooks Webhook#verify'),
      target: 1,
      op: '>=',
      what: `verify ops/s ÷ standardwebhooks, ~${bytes} B body`,
    },
    {
      name: `verify.vs_stripe.${size}`,
      value: get('surety verifySync, Surety headers') / get('stripe webhooks.constructEvent'),
      target: 1,
      op: '>=',
      what: `verify + JSON.parse ops/s ÷ stripe constructEvent, ~${bytes} B body`,
    },
  );
  console.log(`### body ${bytes} bytes\n`);
  console.log('| contestant | ops/s | ratio vs peer |');
  console.log('| --- | ---: | ---: |');
  const sw = get('standardwebhooks Webhook#verify');
  const st = get('stripe webhooks.constructEvent');
  const verifyOnly = get('stripe webhooks.signature.verifyHeader (no JSON.parse)');
  for (const [name, ops] of opsPerSec) {
    const peer = name.includes('Standard Webhooks headers')
      ? sw
      : name.includes('only (no JSON.parse)')
        ? verifyOnly
        : name.includes('Surety headers')
          ? st
          : undefined;
    console.log(`| ${name} | ${fmt(ops)} | ${peer ? `${(ops / peer).toFixed(2)}×` : '—'} |`);
  }
  console.log('');
}
emitResult({ bench: 'verify', metrics: [], ratios });
