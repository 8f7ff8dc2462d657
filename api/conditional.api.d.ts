// The public API of @surety/conditional: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/conditional
export interface CheckInput extends CheckOptions {
    current: CurrentState;
}
export type CheckOptions = Pick<PreconditionInput, 'require' | 'lenientDates' | 'now'>;
export declare class ConditionalError extends Error {
    readonly code: ConditionalErrorCode;
    constructor(code: ConditionalErrorCode, message: string);
}
export type ConditionalErrorCode = 'SURETY_CONDITIONAL_INVALID_ETAG' | 'SURETY_CONDITIONAL_INVALID_VERSION';
export interface ContentETagOptions {
    weak?: boolean;
}
export interface CurrentState {
    exists: boolean;
    etag?: string | undefined;
    lastModified?: Date | undefined;
}
export interface ETag {
    weak: boolean;
    opaque: string;
}
export type ETagListParse = {
    kind: 'any';
    ok: true;
    any: true;
} | {
    kind: 'tags';
    ok: true;
    any: false;
    tags: ETag[];
} | {
    kind: 'invalid';
    ok: false;
    detail: string;
};
export type HeaderSource = {
    get(name: string): string | null | undefined;
} | Readonly<Record<string, string | readonly string[] | undefined>>;
export type IfMatchVersion = {
    kind: 'absent';
} | {
    kind: 'any';
} | {
    kind: 'version';
    version: number;
} | {
    kind: 'versions';
    versions: number[];
} | {
    kind: 'unmatchable';
} | {
    kind: 'malformed';
    detail: string;
};
export { PROBLEM_CONTENT_TYPE } from "@surety/core";
export type PreconditionHeader = 'if-match' | 'if-none-match' | 'if-unmodified-since' | 'if-modified-since';
export interface PreconditionInput {
    method: string;
    headers: HeaderSource;
    current: CurrentState;
    require?: boolean | undefined;
    lenientDates?: boolean | undefined;
    now?: Date | undefined;
}
export interface PreconditionResponse {
    status: 304 | 400 | 412 | 428;
    headers: Record<string, string>;
    body: string;
}
export type PreconditionResult = {
    kind: 'proceed';
    outcome: 'proceed';
    ifMatch: boolean;
    conditional: boolean;
} | {
    kind: 'not_modified';
    outcome: 'not_modified';
    status: 304;
    header: 'if-none-match' | 'if-modified-since';
} | {
    kind: 'precondition_failed';
    outcome: 'precondition_failed';
    status: 412;
    header: 'if-match' | 'if-unmodified-since' | 'if-none-match';
} | {
    kind: 'precondition_required';
    outcome: 'precondition_required';
    status: 428;
} | {
    kind: 'malformed_precondition';
    outcome: 'malformed_precondition';
    status: 400;
    header: PreconditionHeader;
    detail: string;
};
export { Problem } from "@surety/core";
export type ProceedResult = Extract<PreconditionResult, {
    kind: 'proceed';
}>;
export type StopResult = Exclude<PreconditionResult, {
    kind: 'proceed';
}>;
export interface Validators {
    etag?: string | undefined;
    lastModified?: Date | undefined;
}
export interface VersionETagOptions {
    salt?: string;
    weak?: boolean;
}
export declare function contentETag(body: string | Uint8Array, options?: ContentETagOptions): string;
export declare function evaluatePreconditions(input: PreconditionInput): PreconditionResult;
export declare function formatETag(tag: ETag): string;
export declare function formatHttpDate(date: Date): string;
export declare function ifMatchVersion(value: string | readonly string[] | undefined, options?: Pick<VersionETagOptions, 'salt'>): IfMatchVersion;
export declare const isConditionalError: (value: unknown) => value is ConditionalError;
export declare function isOpaqueTag(opaque: string): boolean;
export declare function malformedPreconditionProblem(detail: string): Problem;
export declare function parseETag(value: string): ETag | undefined;
export declare function parseETagList(value: string | readonly string[]): ETagListParse;
export declare function parseHttpDate(value: string, now?: Date): Date | undefined;
export declare function preconditionFailedProblem(header?: 'if-match' | 'if-unmodified-since' | 'if-none-match'): Problem;
export declare function preconditionProblem(result: PreconditionResult): Problem | undefined;
export declare function preconditionRequiredProblem(): Problem;
export declare function preconditionResponse(result: PreconditionResult, context: {
    current: CurrentState;
    instance?: string | undefined;
}): PreconditionResponse | undefined;
export { problemBody } from "@surety/core";
export declare function staleWriteProblem(conditional: boolean | {
    conditional: boolean;
}): Problem;
export declare function strongMatch(a: ETag, b: ETag): boolean;
export declare function validatorHeaders(validators: Validators): Record<string, string>;
export declare function versionConflictProblem(): Problem;
export declare function versionETag(version: number | bigint | string, options?: VersionETagOptions): string;
export declare function versionFromETag(tag: string | ETag, options?: Pick<VersionETagOptions, 'salt'>): number | undefined;
export declare function weakMatch(a: ETag, b: ETag): boolean;

// ===== @surety/conditional/fastify
export type FastifyPreconditionCheck = {
    kind: 'proceed';
    proceed: true;
    result: ProceedResult;
} | {
    kind: 'stop';
    proceed: false;
    result: StopResult;
    payload: string;
};
export declare function checkPreconditions(request: FastifyRequest, reply: FastifyReply, input: CheckInput): FastifyPreconditionCheck;
export declare function setValidators(reply: FastifyReply, validators: Validators): FastifyReply;

// ===== @surety/conditional/express
export type ExpressPreconditionCheck = {
    kind: 'proceed';
    proceed: true;
    result: ProceedResult;
} | {
    kind: 'stop';
    proceed: false;
    result: StopResult;
};
export declare function checkPreconditions(req: Request, res: Response, input: CheckInput): ExpressPreconditionCheck;
export declare function setValidators(res: Response, validators: Validators): Response;

// ===== @surety/conditional/hono
export type HonoPreconditionCheck = {
    kind: 'proceed';
    proceed: true;
    result: ProceedResult;
} | {
    kind: 'stop';
    proceed: false;
    result: StopResult;
    response: Response;
};
export declare function checkPreconditions(c: Context, input: CheckInput): HonoPreconditionCheck;
export declare function setValidators(c: Context, validators: Validators): void;
