/**
 * @surety/spectral-rules/lint: linting a file or URL with the ruleset (Spectral runs it), the
 * `$ref` policy that keeps an untrusted document from making this process fetch URLs, and the
 * `surety-lint` command.
 */
export { type CliIo, formatReport, LINT_USAGE, runLintCli } from './cli.js';
export {
  type Finding,
  LintInputError,
  type LintOptions,
  type LintReport,
  lint,
  lintText,
  type RefPolicy,
  readTarget,
  type Severity,
} from './lint.js';
