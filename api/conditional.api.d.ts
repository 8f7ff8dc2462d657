// The public API of @surety/conditional (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export type { ConditionalErrorCode } from "./errors.js";
export { ConditionalError, isConditionalError } from "./errors.js";
export type { ContentETagOptions, ETag, VersionETagOptions } from "./etag.js";
export { contentETag, formatETag, isOpaqueTag, parseETag, strongMatch, versionETag, versionFromETag, weakMatch, } from "./etag.js";
export type { CurrentState, PreconditionHeader, PreconditionInput, PreconditionResult, } from "./evaluate.js";
export { evaluatePreconditions } from "./evaluate.js";
export type { HeaderSource } from "./headers.js";
export type { ETagListParse } from "./parse.js";
export { formatHttpDate, parseETagList, parseHttpDate } from "./parse.js";
export type { Problem } from "./problem.js";
export { malformedPreconditionProblem, PROBLEM_CONTENT_TYPE, preconditionFailedProblem, preconditionProblem, preconditionRequiredProblem, problemBody, versionConflictProblem, } from "./problem.js";
export type { CheckInput, CheckOptions, PreconditionResponse, ProceedResult, StopResult, Validators, } from "./response.js";
export { preconditionResponse, validatorHeaders } from "./response.js";
export type { IfMatchVersion } from "./version.js";
export { ifMatchVersion, staleWriteProblem } from "./version.js";

// --- dist/errors.d.ts
export type ConditionalErrorCode = "SURETY_CONDITIONAL_INVALID_ETAG" | "SURETY_CONDITIONAL_INVALID_VERSION";
export declare class ConditionalError extends TypeError {
    readonly code: ConditionalErrorCode;
    constructor(code: ConditionalErrorCode, message: string);
}
export declare const isConditionalError: (value: unknown) => value is ConditionalError;

// --- dist/etag.d.ts
export interface ETag {
    weak: boolean;
    opaque: string;
}
export declare function isOpaqueTag(opaque: string): boolean;
export declare function formatETag(tag: ETag): string;
export declare function parseETag(value: string): ETag | undefined;
export declare function strongMatch(a: ETag, b: ETag): boolean;
export declare function weakMatch(a: ETag, b: ETag): boolean;
export interface VersionETagOptions {
    salt?: string;
    weak?: boolean;
}
export declare function versionETag(version: number | bigint | string, options?: VersionETagOptions): string;
export declare function versionFromETag(tag: string | ETag, options?: Pick<VersionETagOptions, "salt">): number | undefined;
export interface ContentETagOptions {
    weak?: boolean;
}
export declare function contentETag(body: string | Uint8Array, options?: ContentETagOptions): string;

// --- dist/evaluate.d.ts
import { type HeaderSource } from "./headers.js";
export interface CurrentState {
    exists: boolean;
    etag?: string | undefined;
    lastModified?: Date | undefined;
}
export interface PreconditionInput {
    method: string;
    headers: HeaderSource;
    current: CurrentState;
    require?: boolean | undefined;
    lenientDates?: boolean | undefined;
    now?: Date | undefined;
}
export type PreconditionHeader = "if-match" | "if-none-match" | "if-unmodified-since" | "if-modified-since";
export type PreconditionResult = {
    kind: "proceed";
    outcome: "proceed";
    ifMatch: boolean;
    conditional: boolean;
} | {
    kind: "not_modified";
    outcome: "not_modified";
    status: 304;
    header: "if-none-match" | "if-modified-since";
} | {
    kind: "precondition_failed";
    outcome: "precondition_failed";
    status: 412;
    header: "if-match" | "if-unmodified-since" | "if-none-match";
} | {
    kind: "precondition_required";
    outcome: "precondition_required";
    status: 428;
} | {
    kind: "malformed_precondition";
    outcome: "malformed_precondition";
    status: 400;
    header: PreconditionHeader;
    detail: string;
};
export declare function evaluatePreconditions(input: PreconditionInput): PreconditionResult;

// --- dist/headers.d.ts
export type HeaderSource = {
    get(name: string): string | null | undefined;
} | Readonly<Record<string, string | readonly string[] | undefined>>;
export declare function readHeader(headers: HeaderSource, name: string): string | undefined;

// --- dist/parse.d.ts
import type { ETag } from "./etag.js";
export type ETagListParse = {
    kind: "any";
    ok: true;
    any: true;
} | {
    kind: "tags";
    ok: true;
    any: false;
    tags: ETag[];
} | {
    kind: "invalid";
    ok: false;
    detail: string;
};
export declare function parseETagList(value: string | readonly string[]): ETagListParse;
export declare function parseHttpDate(value: string, now?: Date): Date | undefined;
export declare function formatHttpDate(date: Date): string;

// --- dist/problem.d.ts
import type { Problem } from "@surety/core";
import type { PreconditionResult } from "./evaluate.js";
export { PROBLEM_CONTENT_TYPE, type Problem, problemBody } from "@surety/core";
export declare function preconditionFailedProblem(header?: "if-match" | "if-unmodified-since" | "if-none-match"): Problem;
export declare function preconditionRequiredProblem(): Problem;
export declare function malformedPreconditionProblem(detail: string): Problem;
export declare function versionConflictProblem(): Problem;
export declare function preconditionProblem(result: PreconditionResult): Problem | undefined;

// --- dist/response.d.ts
import type { CurrentState, PreconditionInput, PreconditionResult } from "./evaluate.js";
export type CheckOptions = Pick<PreconditionInput, "require" | "lenientDates" | "now">;
export interface CheckInput extends CheckOptions {
    current: CurrentState;
}
export declare function checkInput(input: CheckInput | CurrentState, options?: CheckOptions): CheckInput;
export type ProceedResult = Extract<PreconditionResult, {
    kind: "proceed";
}>;
export type StopResult = Exclude<PreconditionResult, {
    kind: "proceed";
}>;
export interface Validators {
    etag?: string | undefined;
    lastModified?: Date | undefined;
}
export declare function validatorHeaders(validators: Validators): Record<string, string>;
export interface PreconditionResponse {
    status: 304 | 400 | 412 | 428;
    headers: Record<string, string>;
    body: string;
}
export declare function preconditionResponse(result: PreconditionResult, context: {
    current: CurrentState;
    instance?: string | undefined;
}): PreconditionResponse | undefined;

// --- dist/version.d.ts
import { type VersionETagOptions } from "./etag.js";
import { type Problem } from "./problem.js";
export type IfMatchVersion = {
    kind: "absent";
} | {
    kind: "any";
} | {
    kind: "version";
    version: number;
} | {
    kind: "versions";
    versions: number[];
} | {
    kind: "unmatchable";
} | {
    kind: "malformed";
    detail: string;
};
export declare function ifMatchVersion(value: string | readonly string[] | undefined, options?: Pick<VersionETagOptions, "salt">): IfMatchVersion;
export declare function staleWriteProblem(conditional: boolean | {
    conditional: boolean;
}): Problem;

// ===== ./fastify → ./dist/fastify.d.ts
// --- dist/fastify.d.ts
import type { FastifyReply, FastifyRequest } from "fastify";
import { type CurrentState } from "./evaluate.js";
import { type CheckInput, type CheckOptions, type ProceedResult, type StopResult, type Validators } from "./response.js";
export type FastifyPreconditionCheck = {
    kind: "proceed";
    proceed: true;
    result: ProceedResult;
} | {
    kind: "stop";
    proceed: false;
    result: StopResult;
    payload: string;
};
export declare function checkPreconditions(request: FastifyRequest, reply: FastifyReply, input: CheckInput): FastifyPreconditionCheck;
export declare function checkPreconditions(request: FastifyRequest, reply: FastifyReply, current: CurrentState, options?: CheckOptions): FastifyPreconditionCheck;
export declare function setValidators(reply: FastifyReply, validators: Validators): FastifyReply;

// (dist/evaluate.d.ts: above)
// (dist/headers.d.ts: above)
// (dist/response.d.ts: above)
// ===== ./express → ./dist/express.d.ts
// --- dist/express.d.ts
import type { Request, Response } from "express";
import { type CurrentState } from "./evaluate.js";
import { type CheckInput, type CheckOptions, type ProceedResult, type StopResult, type Validators } from "./response.js";
export type ExpressPreconditionCheck = {
    kind: "proceed";
    proceed: true;
    result: ProceedResult;
} | {
    kind: "stop";
    proceed: false;
    result: StopResult;
};
export declare function checkPreconditions(req: Request, res: Response, input: CheckInput): ExpressPreconditionCheck;
export declare function checkPreconditions(req: Request, res: Response, current: CurrentState, options?: CheckOptions): ExpressPreconditionCheck;
export declare function setValidators(res: Response, validators: Validators): Response;

// (dist/evaluate.d.ts: above)
// (dist/headers.d.ts: above)
// (dist/response.d.ts: above)
// ===== ./hono → ./dist/hono.d.ts
// --- dist/hono.d.ts
import type { Context } from "hono";
import { type CurrentState } from "./evaluate.js";
import { type CheckInput, type CheckOptions, type ProceedResult, type StopResult, type Validators } from "./response.js";
export type HonoPreconditionCheck = {
    kind: "proceed";
    proceed: true;
    result: ProceedResult;
} | {
    kind: "stop";
    proceed: false;
    result: StopResult;
    response: Response;
};
export declare function checkPreconditions(c: Context, input: CheckInput): HonoPreconditionCheck;
export declare function checkPreconditions(c: Context, current: CurrentState, options?: CheckOptions): HonoPreconditionCheck;
export declare function setValidators(c: Context, validators: Validators): void;

// (dist/evaluate.d.ts: above)
// (dist/headers.d.ts: above)
// (dist/response.d.ts: above)
