/** The rules on what every answer carries: Retry-After on 429 / 503, errors as problem+json. */
import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core';
import {
  isErrorStatus,
  type Json,
  mediaTypes,
  operationsOf,
  responseHeader,
  responsesOf,
} from '../openapi.js';
import { finding, label } from './result.js';

/** 429 and 503 answers declare Retry-After. */
export const retryAfter = createRulesetFunction<unknown, null>(
  { input: null, options: null },
  (pathItem, _options, context) => {
    const results: IFunctionResult[] = [];
    for (const { method, operation } of operationsOf(pathItem)) {
      const at = [...context.path, method];
      for (const [status, response] of responsesOf(operation)) {
        if ((status === '429' || status === '503') && !responseHeader(response, 'Retry-After'))
          results.push(
            finding(
              [...at, 'responses', status],
              `${label(method, at)} answers ${status} without declaring the Retry-After response header: declare it (seconds or an HTTP-date), so that clients wait that long instead of retrying at once.`,
            ),
          );
      }
    }
    return results;
  },
);

const PROBLEM = 'application/problem+json';

/** Error answers (4xx, 5xx, and `default`) that have a body declare it as application/problem+json. */
export const problemJson = createRulesetFunction<unknown, null>(
  { input: null, options: null },
  (pathItem, _options, context) => {
    const results: IFunctionResult[] = [];
    for (const { method, operation } of operationsOf(pathItem)) {
      const at = [...context.path, method];
      for (const [status, response] of responsesOf(operation as Json)) {
        if (!isErrorStatus(status) && status !== 'default') continue;
        const types = mediaTypes(response);
        if (types.length === 0 || types.some((t) => t.toLowerCase().split(';')[0]!.trim() === PROBLEM))
          continue;
        results.push(
          finding(
            [...at, 'responses', status, 'content'],
            `${label(method, at)} documents its ${status} as ${types.join(', ')}: declare errors as ${PROBLEM} (RFC 9457), with a stable machine-readable code, so that clients can tell the problems apart.`,
          ),
        );
      }
    }
    return results;
  },
);
