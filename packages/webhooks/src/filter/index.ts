// Payload filters per endpoint (docs/webhooks.md "Payload filters").
export { evaluateFilter, type FilterDocument } from './evaluate.js';
export { compileFilter } from './jsonpath.js';
export {
  type Comparison,
  FILTER_LIMITS,
  FILTER_ROOTS,
  type FilterLiteral,
  type FilterNode,
  parseFilter,
} from './parse.js';
