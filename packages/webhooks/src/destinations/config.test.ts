import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isInvalidInputError } from '../errors.js';
import { parseAllowList } from '../ssrf/index.js';
import { checkDestination, checkEndpointDestination, expand, redact } from './config.js';

const options = (allowHttp: boolean) => ({
  allowHttp,
  allowList: parseAllowList('127.0.0.1/32'),
  checkWebhookUrl: (url: string) => `checked:${url}`,
});
const refused = (fn: () => unknown, path: string) =>
  assert.throws(fn, (e: unknown) => isInvalidInputError(e) && e.errors[0]!.path === path, path);

test('user info leaves the URL and becomes the credentials; plain text only where allowed', () => {
  const d = checkEndpointDestination(
    { kind: 'amqp', url: 'amqps://svc:p%40ss@broker.example.com/prod', destination: { exchange: 'events' } },
    options(false),
  );
  assert.equal(d.url, 'amqps://broker.example.com/prod');
  assert.deepEqual(JSON.parse(d.credentialsJson!), { username: 'svc', password: 'p@ss' });
  assert.deepEqual(JSON.parse(d.destinationJson), { exchange: 'events', routingKey: '{type}' });
  refused(
    () =>
      checkEndpointDestination(
        { kind: 'amqp', url: 'amqp://broker.example.com/', destination: { exchange: '' } },
        options(false),
      ),
    '/url',
  );
  refused(
    () =>
      checkEndpointDestination(
        {
          kind: 'nats',
          url: 'nats://a:b@127.0.0.1:4222',
          destination: { subject: 'a' },
          credentials: { username: 'c', password: 'd' },
        },
        options(true),
      ),
    '/credentials',
  );
});

test('each kind takes its own schemes, and hosts in blocked ranges are refused', () => {
  refused(
    () =>
      checkEndpointDestination(
        { kind: 'nats', url: 'https://broker.example.com', destination: { subject: 'a' } },
        options(true),
      ),
    '/url',
  );
  refused(
    () =>
      checkEndpointDestination(
        { kind: 'mqtt', url: 'amqps://broker.example.com', destination: { topic: 'a' } },
        options(true),
      ),
    '/url',
  );
  refused(
    () =>
      checkEndpointDestination(
        { kind: 'mqtt', url: 'mqtt://10.0.0.8:1883', destination: { topic: 'a' } },
        options(true),
      ),
    '/url',
  );
  refused(
    () =>
      checkEndpointDestination(
        { kind: 'nats', url: 'nats://[::ffff:127.0.0.2]:4222', destination: { subject: 'a' } },
        options(true),
      ),
    '/url',
  );
  refused(
    () =>
      checkEndpointDestination(
        { kind: 'nats', url: 'nats://broker.example.com?x=1', destination: { subject: 'a' } },
        options(true),
      ),
    '/url',
  );
  refused(
    () => checkEndpointDestination({ kind: 'kafka', url: 'x', destination: {} }, options(true)),
    '/kind',
  );
  assert.equal(
    checkEndpointDestination({ url: 'https://x.example' }, options(false)).url,
    'checked:https://x.example',
  );
  refused(
    () =>
      checkEndpointDestination({ url: 'https://x.example', destination: { subject: 'a' } }, options(false)),
    '/destination',
  );
});

test('settings: no wildcards where one publishes, QoS 1 only, no unknown keys, no control characters', () => {
  refused(() => checkDestination('nats', { subject: 'orders.*' }), '/destination/subject');
  refused(() => checkDestination('nats', { subject: 'orders..x' }), '/destination/subject');
  refused(() => checkDestination('mqtt', { topic: 'orders/#' }), '/destination/topic');
  refused(() => checkDestination('mqtt', { topic: 'orders', qos: 2 }), '/destination/qos');
  refused(() => checkDestination('amqp', { exchange: 'x', durable: true }), '/destination/durable');
  refused(() => checkDestination('amqp', { exchange: 'x\r\n' }), '/destination/exchange');
  refused(() => checkDestination('amqp', { exchange: 'x'.repeat(256) }), '/destination/exchange');
  refused(() => checkDestination('nats', undefined), '/destination');
  assert.deepEqual(checkDestination('mqtt', { topic: 'a/{type}' }), { topic: 'a/{type}', qos: 1 });
  assert.equal(expand('events.{type}', 'order.shipped'), 'events.order.shipped');
});

test('credentials are shown redacted', () => {
  assert.deepEqual(redact({ username: 'svc', password: 'secret' }), {
    username: 'svc',
    password: '[redacted]',
  });
  assert.equal(redact(null), null);
});
