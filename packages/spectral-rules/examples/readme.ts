import { lintText } from '@surety/spectral-rules/lint';

// A POST that takes no Idempotency-Key, and an update of a versioned resource without If-Match.
const document = `
openapi: 3.1.0
info: { title: Shop, version: 1.0.0 }
paths:
  /charges:
    post:
      responses: { '201': { description: Created } }
  /orders/{id}:
    get:
      responses:
        '200': { description: The order, headers: { ETag: { schema: { type: string } } } }
    patch:
      responses: { '200': { description: Updated } }
`;

const report = await lintText(document, { source: 'shop.yaml' });
for (const f of report.findings) console.log(`${f.line}:${f.column} ${f.severity} ${f.rule}`);
console.log(`${report.errors} errors, ${report.warnings} warnings`); // a CI job fails on errors
console.log(report.findings[0]?.documentationUrl); // …/docs/contracts.md#surety-post-idempotency-key
