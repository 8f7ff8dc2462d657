// A small OpenAPI 3.1 document that keeps every rule of the ruleset, and one mutation per rule that
// breaks that rule alone: the corpus the ruleset's tests lint.

// biome-ignore lint/suspicious/noExplicitAny: the mutations reach into a hand-written document.
type Doc = Record<string, any>;

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** A fresh copy of the document that passes every rule. */
export function goodDocument(): Doc {
  return {
    openapi: '3.1.0',
    info: { title: 'Shop', version: '1.0.0' },
    paths: {
      '/payments': {
        post: {
          operationId: 'createPayment',
          parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
          requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
          responses: {
            '201': { description: 'Created' },
            '400': problem('No Idempotency-Key, or an invalid one'),
            '409': problem('A request with this key is still in flight'),
            '422': problem('The key was used with another body'),
            '429': {
              ...problem('Too many requests'),
              headers: { 'Retry-After': { schema: { type: 'integer' } } },
            },
          },
          callbacks: {
            paymentSettled: {
              '{$request.body#/callbackUrl}': {
                post: {
                  parameters: [
                    { name: 'Webhook-Signature', in: 'header', required: true, schema: { type: 'string' } },
                    { name: 'Webhook-Timestamp', in: 'header', required: true, schema: { type: 'string' } },
                  ],
                  responses: { '200': { description: 'Received' } },
                },
              },
            },
          },
        },
      },
      '/search': {
        post: {
          'x-idempotent': true,
          responses: { '200': { description: 'Results' }, '503': problemWithRetry('Busy') },
        },
      },
      '/orders/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          parameters: [{ name: 'If-None-Match', in: 'header', schema: { type: 'string' } }],
          responses: {
            '200': { description: 'The order', headers: { ETag: { schema: { type: 'string' } } } },
            '304': { description: 'Not modified' },
            '404': problem('No such order'),
          },
        },
        put: {
          parameters: [{ $ref: '#/components/parameters/IfMatchRequired' }],
          responses: {
            '200': { description: 'Replaced', headers: { ETag: { schema: { type: 'string' } } } },
            '412': problem('The order changed since it was read'),
            '428': problem('If-Match is required'),
          },
        },
        delete: {
          parameters: [{ name: 'If-Match', in: 'header', schema: { type: 'string' } }],
          responses: { '204': { description: 'Deleted' }, '412': problem('The order changed') },
        },
      },
    },
    webhooks: {
      'order.shipped': {
        post: {
          parameters: [
            {
              name: 'Webhook-Signature',
              in: 'header',
              description: 't=<unix time>,v1=<HMAC-SHA256 of the timestamp and the body>',
              schema: { type: 'string' },
            },
          ],
          responses: { '200': { description: 'Received' } },
        },
      },
    },
    components: {
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description: 'A unique key; a retry with it replays the first answer. Keys expire after 24 hours.',
          schema: { type: 'string', maxLength: 255 },
        },
        IfMatchRequired: { name: 'If-Match', in: 'header', required: true, schema: { type: 'string' } },
      },
      schemas: { Problem: { type: 'object', properties: { code: { type: 'string' } } } },
    },
  };
}

function problemWithRetry(description: string) {
  return { ...problem(description), headers: { 'Retry-After': { schema: { type: 'integer' } } } };
}

/** One mutation per rule; each breaks that rule, and only it. */
export const BREAKERS: { rule: string; what: string; mutate(doc: Doc): void }[] = [
  {
    rule: 'surety-post-idempotency-key',
    what: 'a POST without Idempotency-Key or x-idempotent',
    mutate: (d) => {
      delete d.paths['/search'].post['x-idempotent'];
    },
  },
  {
    rule: 'surety-idempotency-conflicts',
    what: 'no 409',
    mutate: (d) => {
      delete d.paths['/payments'].post.responses['409'];
    },
  },
  {
    rule: 'surety-idempotency-key-required-400',
    what: 'a required key without 400',
    mutate: (d) => {
      delete d.paths['/payments'].post.responses['400'];
    },
  },
  {
    rule: 'surety-idempotency-key-expiry',
    what: 'a key whose expiry is not stated',
    mutate: (d) => {
      d.components.parameters.IdempotencyKey.description =
        'A unique key; a retry with it replays the first answer.';
    },
  },
  {
    rule: 'surety-write-if-match',
    what: 'a DELETE of a versioned resource without If-Match',
    mutate: (d) => {
      d.paths['/orders/{id}'].delete.parameters = [];
    },
  },
  {
    rule: 'surety-write-unversioned',
    what: 'a PATCH with a body on a path that shows no version',
    mutate: (d) => {
      d.paths['/notes/{id}'] = {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: { responses: { '200': { description: 'The note' } } },
        patch: {
          requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '200': { description: 'Changed' } },
        },
      };
    },
  },
  {
    rule: 'surety-write-412',
    what: 'a DELETE of a versioned resource without 412',
    mutate: (d) => {
      delete d.paths['/orders/{id}'].delete.responses['412'];
    },
  },
  {
    rule: 'surety-write-428',
    what: 'a required If-Match without 428',
    mutate: (d) => {
      delete d.paths['/orders/{id}'].put.responses['428'];
    },
  },
  {
    rule: 'surety-read-etag',
    what: 'a GET of a versioned resource without ETag',
    mutate: (d) => {
      delete d.paths['/orders/{id}'].get.responses['200'].headers;
    },
  },
  {
    rule: 'surety-read-304',
    what: 'a GET of a versioned resource without 304',
    mutate: (d) => {
      delete d.paths['/orders/{id}'].get.responses['304'];
    },
  },
  {
    rule: 'surety-retry-after',
    what: 'a 503 without Retry-After',
    mutate: (d) => {
      delete d.paths['/search'].post.responses['503'].headers;
    },
  },
  {
    rule: 'surety-problem-json',
    what: 'a 404 as application/json',
    mutate: (d) => {
      d.paths['/orders/{id}'].get.responses['404'].content = {
        'application/json': { schema: { type: 'object' } },
      };
    },
  },
  {
    rule: 'surety-webhook-signature',
    what: 'a callback without a signature header',
    mutate: (d) => {
      d.paths['/payments'].post.callbacks.paymentSettled['{$request.body#/callbackUrl}'].post.parameters = [];
    },
  },
  {
    rule: 'surety-webhook-timestamp',
    what: 'a webhook signed without a timestamp',
    mutate: (d) => {
      d.webhooks['order.shipped'].post.parameters[0].description = 'HMAC-SHA256 of the body';
    },
  },
];
