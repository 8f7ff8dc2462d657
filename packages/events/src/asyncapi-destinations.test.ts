import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Parser } from '@asyncapi/parser';
import { serviceRegistry } from '../test/service-catalogue.js';
import { serviceContract } from './asyncapi.js';
import { type DestinationChannel, withDestinations } from './asyncapi-destinations.js';

const parser = new Parser();
const REVIEWED = new Set(['asyncapi-latest-version']);
const destinations: DestinationChannel[] = [
  {
    id: 'we_amqp',
    kind: 'amqp',
    url: 'amqps://broker.example.com/prod',
    destination: { exchange: 'events', routingKey: 'acme.{type}' },
    eventTypes: ['order.shipped'],
  },
  {
    id: 'we_nats',
    kind: 'nats',
    url: 'tls://nats.example.com:4222',
    destination: { subject: 'acme.{type}' },
    eventTypes: ['*'],
  },
  {
    id: 'we_mqtt',
    kind: 'mqtt',
    url: 'mqtts://mqtt.example.com',
    destination: { topic: 'acme/orders' },
    eventTypes: ['*'],
  },
];

describe('withDestinations', () => {
  it('describes each broker channel with its bindings and parses with no errors or warnings', async () => {
    const base = serviceContract(serviceRegistry());
    const doc = withDestinations(base, destinations);
    assert.equal(base.servers, undefined, 'the document given is left as it was');
    const { document, diagnostics } = await parser.parse(JSON.stringify(doc));
    const unexpected = diagnostics.filter((d) => d.severity <= 1 || !REVIEWED.has(String(d.code)));
    assert.deepEqual(
      unexpected.map((d) => `${d.code} ${d.path.join('/')}: ${d.message}`),
      [],
    );
    assert.ok(document);
    const amqp = document.channels().get('we_amqp')!;
    assert.equal(amqp.address(), 'acme.{type}');
    assert.deepEqual(amqp.bindings().get('amqp')!.value(), {
      is: 'routingKey',
      exchange: { name: 'events', vhost: 'prod' },
    });
    assert.deepEqual(
      amqp
        .messages()
        .all()
        .map((m) => m.name()),
      ['order.shipped'],
    );
    assert.equal(document.servers().get('we_amqp')!.protocol(), 'amqps');
    assert.equal(document.channels().get('we_nats')!.address(), 'acme.{type}');
    assert.equal(document.servers().get('we_mqtt')!.protocol(), 'secure-mqtt');
    const mqttOp = document.operations().get('publish_we_mqtt')!;
    assert.equal(mqttOp.bindings().get('mqtt')!.value().qos, 1);
    assert.ok(mqttOp.isSend());
  });

  it('is not vacuous: a binding the spec does not know is an error', async () => {
    const doc = withDestinations(serviceContract(serviceRegistry()), destinations);
    (doc.channels!.we_amqp as { bindings: { amqp: Record<string, unknown> } }).bindings.amqp.is = 'stream';
    const { diagnostics } = await parser.parse(JSON.stringify(doc));
    assert.ok(
      diagnostics.some((d) => d.severity === 0),
      'an error is reported',
    );
  });

  it('never carries credentials, even from a URL that has user info', () => {
    const doc = withDestinations(serviceContract(serviceRegistry()), [
      { ...destinations[0]!, url: 'amqps://svc:pw-secret@broker.example.com/prod' },
    ]);
    const text = JSON.stringify(doc);
    assert.ok(!text.includes('pw-secret') && !text.includes('svc:'), 'no credentials');
    assert.equal((doc.servers as Record<string, { host: string }>).we_amqp!.host, 'broker.example.com');
  });
});
