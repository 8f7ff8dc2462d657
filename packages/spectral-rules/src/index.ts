/**
 * @surety/spectral-rules: the reliability ruleset for Spectral. The package's default export is the
 * ruleset, so that Spectral's CLI takes it by name (`extends: ["@surety/spectral-rules"]`); `lint()`
 * and the command live in `@surety/spectral-rules/lint`.
 */
import { ruleset } from './ruleset.js';

export { KEY_TTL, NATURALLY_IDEMPOTENT, SIGNATURE, VERSIONED } from './extensions.js';
export { DOCS, RULE_NAMES, ruleset } from './ruleset.js';
export default ruleset;
