// The public API of @surety/spectral-rules: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/spectral-rules
export declare const DOCS = "https://github.com/surety-dev/surety/blob/main/docs/contracts.md";
export declare const KEY_TTL = "x-idempotency-ttl";
export declare const NATURALLY_IDEMPOTENT = "x-idempotent";
export declare const RULE_NAMES: readonly string[];
export declare const SIGNATURE = "x-webhook-signature";
export declare const VERSIONED = "x-versioned";
export declare const ruleset: RulesetDefinition;
export { ruleset as default }; // as in @surety/spectral-rules

// ===== @surety/spectral-rules/lint
export { CliIo } from "@surety/core/node";
export interface Finding {
    rule: string;
    severity: Severity;
    message: string;
    path: (string | number)[];
    line: number;
    column: number;
    documentationUrl?: string;
}
export declare const LINT_USAGE = "Usage: surety-lint <file or URL> [--json] [--refs none|files|remote] [--fail-on error|warn]\n\nLints an OpenAPI 3.x document (JSON or YAML) with the Surety reliability ruleset.\n  --json      print the report as JSON\n  --refs      which $refs to follow: none (only inside the document; the default for a URL),\n              files (also files under the document's folder; the default for a file),\n              remote (also http(s): only for a document you trust)\n  --fail-on   the lowest severity that fails (exit 1)   default: error\nRules: https://github.com/surety-dev/surety/blob/main/docs/contracts.md";
export declare class LintInputError extends Error {
    readonly code = "SURETY_LINT_INPUT";
}
export interface LintOptions {
    refs?: RefPolicy;
    maxBytes?: number;
    timeoutMs?: number;
}
export interface LintReport {
    source: string;
    findings: Finding[];
    errors: number;
    warnings: number;
}
export type RefPolicy = 'none' | 'files' | 'remote';
export type Severity = 'error' | 'warn' | 'info' | 'hint';
export declare function formatReport(report: LintReport): string;
export declare function lint(target: string, options?: LintOptions): Promise<LintReport>;
export declare function lintText(text: string, options?: LintOptions & {
    source?: string;
}): Promise<LintReport>;
export declare function readTarget(target: string, options?: LintOptions): Promise<string>;
export declare function runLintCli(argv: string[], io?: CliIo): Promise<number>;
