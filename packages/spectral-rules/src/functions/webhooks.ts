/**
 * The rules on webhooks: OpenAPI 3.1 `webhooks` and the callbacks of operations (3.0 and 3.1) are
 * requests the API sends; each declares the headers a receiver verifies it with.
 */
import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core';
import { SIGNATURE } from '../extensions.js';
import { isObject, type Json, operationsOf } from '../openapi.js';
import { finding, label } from './result.js';

function headerNames(pathItem: Json, operation: Json): { name: string; description: string }[] {
  const list = [pathItem.parameters, operation.parameters].flatMap((l) => (Array.isArray(l) ? l : []));
  return list
    .filter(isObject)
    .filter((p) => p.in === 'header' && typeof p.name === 'string')
    .map((p) => ({
      name: p.name as string,
      description: typeof p.description === 'string' ? p.description : '',
    }));
}

/** Every webhook or callback declares a signature header (or `x-webhook-signature`). */
export const webhookSignature = createRulesetFunction<unknown, null>(
  { input: null, options: null },
  (pathItem, _options, context) => {
    const results: IFunctionResult[] = [];
    for (const { method, operation } of operationsOf(pathItem)) {
      const at = [...context.path, method];
      if (operation[SIGNATURE] !== undefined || (pathItem as Json)[SIGNATURE] !== undefined) continue;
      if (headerNames(pathItem as Json, operation).some((h) => /signature/i.test(h.name))) continue;
      results.push(
        finding(
          at,
          `${label(method, at)} is a webhook without a signature header: declare the header a receiver verifies (e.g. Webhook-Signature: an HMAC-SHA256 of the timestamp and the raw body), or name the scheme in \`${SIGNATURE}\`.`,
        ),
      );
    }
    return results;
  },
);

/** ... and a timestamp under the signature, so that a receiver can refuse a replayed request. */
export const webhookTimestamp = createRulesetFunction<unknown, null>(
  { input: null, options: null },
  (pathItem, _options, context) => {
    const results: IFunctionResult[] = [];
    for (const { method, operation } of operationsOf(pathItem)) {
      const at = [...context.path, method];
      const headers = headerNames(pathItem as Json, operation);
      const signature = headers.filter((h) => /signature/i.test(h.name));
      if (signature.length === 0) continue; // the signature rule says it
      if (headers.some((h) => /timestamp/i.test(h.name))) continue;
      if (signature.some((h) => /timestamp|\bt=/i.test(h.description))) continue;
      results.push(
        finding(
          at,
          `${label(method, at)} signs its webhook without a timestamp: sign a timestamp with the body and send it (e.g. Webhook-Timestamp), so that a receiver can refuse a request replayed later.`,
        ),
      );
    }
    return results;
  },
);
