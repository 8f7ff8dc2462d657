// The public API of @surety/spectral-rules (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
import { ruleset } from "./ruleset.js";
export { KEY_TTL, NATURALLY_IDEMPOTENT, SIGNATURE, VERSIONED } from "./extensions.js";
export { DOCS, RULE_NAMES, ruleset } from "./ruleset.js";
export default ruleset;

// --- dist/ruleset.d.ts
import type { RulesetDefinition } from "@stoplight/spectral-core";
export declare const DOCS = "https://github.com/surety-dev/surety/blob/main/docs/contracts.md";
export declare const RULE_NAMES: readonly string[];
export declare const ruleset: RulesetDefinition;

// --- dist/extensions.d.ts
export declare const NATURALLY_IDEMPOTENT = "x-idempotent";
export declare const KEY_TTL = "x-idempotency-ttl";
export declare const VERSIONED = "x-versioned";
export declare const SIGNATURE = "x-webhook-signature";

// ===== ./lint → ./dist/lint-entry.d.ts
// --- dist/lint-entry.d.ts
export { type CliIo, formatReport, LINT_USAGE, runLintCli } from "./cli.js";
export { type Finding, LintInputError, type LintOptions, type LintReport, lint, lintText, type RefPolicy, readTarget, type Severity, } from "./lint.js";

// --- dist/cli.d.ts
import { type LintReport } from "./lint.js";
export declare const LINT_USAGE = "Usage: surety-lint <file or URL> [--json] [--refs none|files|remote] [--fail-on error|warn]\n\nLints an OpenAPI 3.x document (JSON or YAML) with the Surety reliability ruleset.\n  --json      print the report as JSON\n  --refs      which $refs to follow: none (only inside the document; the default for a URL),\n              files (also files under the document's folder; the default for a file),\n              remote (also http(s): only for a document you trust)\n  --fail-on   the lowest severity that fails (exit 1)   default: error\nRules: https://github.com/surety-dev/surety/blob/main/docs/contracts.md";
export interface CliIo {
    out: (text: string) => void;
    err: (text: string) => void;
}
export declare function formatReport(report: LintReport): string;
export declare function runLintCli(argv: string[], io?: CliIo): Promise<number>;

// --- dist/lint.d.ts
import { type RefPolicy } from "./resolver.js";
export type { RefPolicy } from "./resolver.js";
export type Severity = "error" | "warn" | "info" | "hint";
export interface Finding {
    rule: string;
    severity: Severity;
    message: string;
    path: (string | number)[];
    line: number;
    column: number;
    documentationUrl?: string;
}
export interface LintReport {
    source: string;
    findings: Finding[];
    errors: number;
    warnings: number;
}
export interface LintOptions {
    refs?: RefPolicy;
    maxBytes?: number;
    timeoutMs?: number;
}
export declare class LintInputError extends Error {
    readonly code = "SURETY_LINT_INPUT";
}
export declare function readTarget(target: string, options?: LintOptions): Promise<string>;
export declare function lintText(text: string, options?: LintOptions & {
    source?: string;
}): Promise<LintReport>;
export declare function lint(target: string, options?: LintOptions): Promise<LintReport>;

// --- dist/resolver.d.ts
import { Resolver } from "@stoplight/spectral-ref-resolver";
export type RefPolicy = "none" | "files" | "remote";
export declare function createResolver(policy: RefPolicy, source: string | undefined): Resolver;
