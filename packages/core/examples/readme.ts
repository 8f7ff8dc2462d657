import { isEventType, PROBLEM_CONTENT_TYPE, parseProblem, problemBody } from '@surety/core';

// One builder for every problem+json answer: RFC 9457's members, the stable `code`, extensions last.
const body = problemBody(
  {
    status: 409,
    code: 'endpoint_limit_reached',
    title: 'Endpoint limit reached',
    detail: 'This tenant already has 20 webhook endpoints, the most allowed; delete one first.',
    extensions: { limit: 20 },
  },
  '/v1/webhook-endpoints',
);
console.log(PROBLEM_CONTENT_TYPE, body);

// Reading one back (from another service, say) never throws: undefined when it is not a problem.
console.log(parseProblem(body)?.code, parseProblem('<html>'));

console.log(isEventType('order.shipped'), isEventType('OrderShipped'));
