import { buildAsyncApi, createRegistry, toYaml } from '@surety/events';

const registry = createRegistry({ events: [] }).register({
  type: 'invoice.paid',
  description: 'An invoice was paid in full.',
  schema: {
    type: 'object',
    required: ['invoiceId', 'amount'],
    properties: { invoiceId: { type: 'string' }, amount: { type: 'string', pattern: '^[0-9]+$' } },
  },
  sample: { invoiceId: 'inv_1', amount: '1999' },
});

console.log(registry.validate('invoice.paid', { invoiceId: 'inv_1', amount: '1999' }).kind); // valid
const bad = registry.validate('invoice.paid', { invoiceId: 'inv_1', amount: 19.99 });
if (bad.kind === 'invalid') console.log(bad.error.code); // refused before it reaches the outbox

const doc = buildAsyncApi(registry, { title: 'Acme webhooks', version: '1.0.0' });
console.log(toYaml(doc).split('\n')[0]); // asyncapi: 3.0.0
