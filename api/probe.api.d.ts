// The public API of @surety/probe: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/probe
export { CliIo } from "@surety/core/node";
export interface ClientOptions {
    maxRequests?: number;
    minIntervalMs?: number;
    timeoutMs?: number;
    maxBodyBytes?: number;
}
export interface Exchange {
    status: number;
    headers: Record<string, string>;
    body: string;
    ms: number;
}
export type Level = 'MUST' | 'SHOULD';
export declare const PROBE_USAGE = "Usage: surety-probe <url> [--method POST] [--body JSON] [--header 'Name: value']... [--json]\n\nChecks a running HTTP API against the Idempotency-Key draft and RFC 9110's preconditions, as a\nclient would see them. It sends real requests (creating what the operation creates): point it at\na test environment.\n  --method        the operation's method                               default: POST\n  --body          the request body; {{uuid}} becomes one UUID per run\n  --alt-body      a second valid body, for the key-reuse rule          default: derived from --body\n  --header        a header for every request (repeat it), e.g. 'Authorization: Bearer sk_test_\u2026'\n  --only          idempotency | preconditions                          default: by method\n  --max-requests  the most requests sent                               default: 40\n  --rate          the most requests a second                           default: 20\n  --timeout       per request, in ms                                   default: 10000\n  --strict        fail on a SHOULD too\n  --json          print the report as JSON";
export declare class ProbeError extends Error {
    readonly code: 'SURETY_PROBE_URL' | 'SURETY_PROBE_BUDGET' | 'SURETY_PROBE_INPUT';
    constructor(code: 'SURETY_PROBE_URL' | 'SURETY_PROBE_BUDGET' | 'SURETY_PROBE_INPUT', message: string);
}
export interface ProbeOptions extends ClientOptions {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    altBody?: string;
    suites?: Suite[];
    inFlightMs?: number;
    duplicates?: number;
}
export interface ProbeReport {
    method: string;
    url: string;
    results: RuleResult[];
    requests: number;
    durationMs: number;
    counts: Record<Verdict, number>;
    ok: boolean;
}
export declare const RULES: {
    readonly replay: {
        readonly level: "MUST";
        readonly title: "a retry with the same key and body gets the first answer, not a second execution";
        readonly source: "draft-ietf-httpapi-idempotency-key-header, \"Idempotency Enforcement\"";
    };
    readonly 'replay-header': {
        readonly level: "SHOULD";
        readonly title: "a replayed answer says so (Idempotent-Replayed: true)";
        readonly source: "Surety, Stripe (not in the draft)";
    };
    readonly 'reuse-422': {
        readonly level: "SHOULD";
        readonly title: "the same key with another body is refused with 422";
        readonly source: "draft-ietf-httpapi-idempotency-key-header, \"Error Scenarios\"";
    };
    readonly 'in-flight-once': {
        readonly level: "MUST";
        readonly title: "concurrent duplicates run the operation at most once";
        readonly source: "draft-ietf-httpapi-idempotency-key-header, \"Idempotency Enforcement\"";
    };
    readonly 'in-flight-409': {
        readonly level: "SHOULD";
        readonly title: "a duplicate that arrives while the first is in flight gets 409 with Retry-After";
        readonly source: "draft-ietf-httpapi-idempotency-key-header, \"Error Scenarios\"; RFC 9110 §10.2.3";
    };
    readonly 'missing-key-400': {
        readonly level: "SHOULD";
        readonly title: "a request without a required key is refused with 400";
        readonly source: "draft-ietf-httpapi-idempotency-key-header, \"Error Scenarios\"";
    };
    readonly 'key-length': {
        readonly level: "SHOULD";
        readonly title: "an oversized key (1,024 characters) is refused with a 4xx, not stored or a 5xx";
        readonly source: "draft-ietf-httpapi-idempotency-key-header leaves the bound to the server (Surety: 255)";
    };
    readonly 'quoted-key': {
        readonly level: "MUST";
        readonly title: "the structured-field form \"k\" names the same key as k";
        readonly source: "draft-ietf-httpapi-idempotency-key-header: the value is an RFC 8941 String (§3.3.3)";
    };
    readonly 'etag-304': {
        readonly level: "MUST";
        readonly title: "a GET with If-None-Match: <current ETag> answers 304";
        readonly source: "RFC 9110 §13.1.2";
    };
    readonly 'stale-412': {
        readonly level: "MUST";
        readonly title: "a write with a stale If-Match is refused with 412 and changes nothing";
        readonly source: "RFC 9110 §13.1.1";
    };
    readonly 'weak-412': {
        readonly level: "MUST";
        readonly title: "a weak tag never matches If-Match (strong comparison): 412";
        readonly source: "RFC 9110 §13.1.1, §8.8.3.2";
    };
    readonly 'current-proceeds': {
        readonly level: "MUST";
        readonly title: "a write with the current ETag in If-Match proceeds";
        readonly source: "RFC 9110 §13.1.1";
    };
    readonly 'missing-428': {
        readonly level: "SHOULD";
        readonly title: "a write without If-Match, where one is required, is refused with 428";
        readonly source: "RFC 6585 §3";
    };
};
export type RuleId = keyof typeof RULES;
export interface RuleInfo {
    id: string;
    level: Level;
    title: string;
    source: string;
}
export interface RuleResult extends RuleInfo {
    id: RuleId;
    verdict: Verdict;
    detail: string;
}
export type Suite = 'idempotency' | 'preconditions';
export type Verdict = 'pass' | 'fail' | 'inconclusive' | 'not-applicable';
export declare function formatTable(report: ProbeReport): string;
export declare function parseProbeArgs(argv: string[]): {
    options: ProbeOptions;
    json: boolean;
    strict: boolean;
};
export declare function probe(options: ProbeOptions): Promise<ProbeReport>;
export declare function runProbeCli(argv: string[], io?: CliIo): Promise<number>;
