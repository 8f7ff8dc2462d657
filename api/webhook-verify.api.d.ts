// The public API of @surety/webhook-verify (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export type { CryptoBackend } from "./crypto.js";
export { isWebhookVerificationError, WebhookErrorCode, WebhookVerificationError, } from "./errors.js";
export type { HeadersLike } from "./headers.js";
export type { WebhookProblem } from "./http.js";
export { DEFAULT_BODY_LIMIT, PROBLEM_CONTENT_TYPE, problemBody, problemForError, ReceiverErrorCode, webhookProblem, } from "./http.js";
export type { Secret, WebhookFormat } from "./keys.js";
export { PUBLIC_KEY_PREFIX, SECRET_PREFIX, SIGNING_KEY_PREFIX } from "./keys.js";
export { generateSecret, generateSigningKey } from "./secrets.js";
export type { SignInput, WebhookHeaders } from "./sign.js";
export { sign, signSync } from "./sign.js";
export type { VerifiedWebhook, Verifier, VerifierOptions, VerifyInput } from "./verify.js";
export { createVerifier, DEFAULT_TOLERANCE_SECONDS, verify, verifySync } from "./verify.js";

// --- dist/crypto.d.ts
import type { webcrypto } from "node:crypto";
import type { Ed25519Key, HmacKey } from "./keys.js";
export interface CryptoBackend {
    readonly name: "node" | "web";
    hmac(key: HmacKey, prefix: string, body: string | Uint8Array): Uint8Array | Promise<Uint8Array>;
    ed25519Sign(key: Ed25519Key, prefix: string, body: string | Uint8Array): Uint8Array | Promise<Uint8Array>;
    ed25519Verify(key: Ed25519Key, prefix: string, body: string | Uint8Array, signature: Uint8Array): boolean | Promise<boolean>;
    ed25519PublicKey(key: Ed25519Key): Uint8Array | Promise<Uint8Array>;
    equal(a: Uint8Array, b: Uint8Array): boolean;
}
type NodeCrypto = typeof import("node:crypto");
export declare const nodeCrypto: NodeCrypto | undefined;
export declare function createNodeBackend(crypto: NodeCrypto): CryptoBackend;
export declare function createWebBackend(subtle: webcrypto.SubtleCrypto): CryptoBackend;
export declare function defaultBackend(): CryptoBackend;
export declare function syncBackend(): CryptoBackend;
export {};

// --- dist/keys.d.ts
export type Secret = string | Uint8Array;
export type WebhookFormat = "surety" | "standard";
export declare const SECRET_PREFIX = "whsec_";
export declare const SIGNING_KEY_PREFIX = "whsk_";
export declare const PUBLIC_KEY_PREFIX = "whpk_";
export interface HmacKey {
    kind: "hmac";
    index: number;
    bytes: Uint8Array;
}
export interface Ed25519Key {
    kind: "ed25519";
    index: number;
    seed: Uint8Array | undefined;
    publicKey: Uint8Array | undefined;
}
export type PreparedKey = HmacKey | Ed25519Key;
export declare function prepareKey(secret: Secret, format: WebhookFormat, index: number): PreparedKey;
export declare function prepareKeys(secrets: Secret | readonly Secret[], format: WebhookFormat): PreparedKey[];

// --- dist/errors.d.ts
export declare const WebhookErrorCode: {
    readonly MissingHeader: "SURETY_WEBHOOK_MISSING_HEADER";
    readonly MalformedHeader: "SURETY_WEBHOOK_MALFORMED_HEADER";
    readonly BadTimestamp: "SURETY_WEBHOOK_BAD_TIMESTAMP";
    readonly TimestampTooOld: "SURETY_WEBHOOK_TIMESTAMP_TOO_OLD";
    readonly TimestampTooNew: "SURETY_WEBHOOK_TIMESTAMP_TOO_NEW";
    readonly IdMismatch: "SURETY_WEBHOOK_ID_MISMATCH";
    readonly NoMatchingSignature: "SURETY_WEBHOOK_NO_MATCHING_SIGNATURE";
    readonly BadSecret: "SURETY_WEBHOOK_BAD_SECRET";
};
export type WebhookErrorCode = (typeof WebhookErrorCode)[keyof typeof WebhookErrorCode];
export declare class WebhookVerificationError extends Error {
    readonly code: WebhookErrorCode;
    constructor(code: WebhookErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export declare const isWebhookVerificationError: (value: unknown) => value is WebhookVerificationError;
export declare function fail(code: WebhookErrorCode, message: string, cause?: unknown): never;

// --- dist/headers.d.ts
export type HeadersLike = {
    get(name: string): string | null;
} | Readonly<Record<string, string | readonly string[] | undefined>>;
export declare function headerValues(headers: HeadersLike, name: string): string[];

// --- dist/http.d.ts
import type { Problem } from "@surety/core";
export { PROBLEM_CONTENT_TYPE, problemBody } from "@surety/core";
export declare const DEFAULT_BODY_LIMIT: number;
export declare const ReceiverErrorCode: {
    readonly BodyTooLarge: "SURETY_WEBHOOK_BODY_TOO_LARGE";
    readonly InvalidJson: "SURETY_WEBHOOK_INVALID_JSON";
    readonly RawBodyUnavailable: "SURETY_WEBHOOK_RAW_BODY_UNAVAILABLE";
};
export type WebhookProblem = Problem;
export declare function webhookProblem(code: string, detail: string): WebhookProblem;
export declare const problemCode: (code: string) => string;
export declare function problemForError(error: unknown): WebhookProblem | undefined;
export declare function isJsonType(contentType: string | undefined): boolean;

// --- dist/secrets.d.ts
export declare function generateSecret(bytes?: number): string;
export declare function generateSigningKey(): Promise<{
    signingKey: string;
    publicKey: string;
}>;

// --- dist/sign.d.ts
import { type CryptoBackend } from "./crypto.js";
import { type Secret, type WebhookFormat } from "./keys.js";
export interface SignInput {
    id: string;
    body: string | Uint8Array;
    secrets: Secret | readonly Secret[];
    format?: WebhookFormat;
    timestamp?: number | Date;
    now?: () => number;
    backend?: CryptoBackend;
}
export type WebhookHeaders = {
    "webhook-id": string;
    "webhook-timestamp": string;
    "webhook-signature": string;
};
export declare function sign(input: SignInput): Promise<WebhookHeaders>;
export declare function signSync(input: SignInput): WebhookHeaders;

// --- dist/verify.d.ts
import { type CryptoBackend } from "./crypto.js";
import { type HeadersLike } from "./headers.js";
import { type Secret, type WebhookFormat } from "./keys.js";
export declare const DEFAULT_TOLERANCE_SECONDS = 300;
export interface VerifierOptions {
    secrets: Secret | readonly Secret[];
    format?: "auto" | WebhookFormat;
    toleranceSeconds?: number;
    now?: () => number;
    backend?: CryptoBackend;
}
export interface VerifyInput extends VerifierOptions {
    body: string | Uint8Array;
    headers: HeadersLike;
}
export interface VerifiedWebhook {
    format: WebhookFormat;
    id: string | undefined;
    idSigned: boolean;
    timestamp: number;
    signature: "v1" | "v1a";
    secretIndex: number;
}
export interface Verifier {
    verify(body: string | Uint8Array, headers: HeadersLike): Promise<VerifiedWebhook>;
    verifySync(body: string | Uint8Array, headers: HeadersLike): VerifiedWebhook;
}
export declare function createVerifier(options: VerifierOptions): Verifier;
export declare function verify(input: VerifyInput): Promise<VerifiedWebhook>;
export declare function verifySync(input: VerifyInput): VerifiedWebhook;

// ===== ./fastify → ./dist/fastify.d.ts
// --- dist/fastify.d.ts
import type { FastifyPluginAsync } from "fastify";
import { type VerifiedWebhook, type VerifierOptions } from "./verify.js";
declare module "fastify" {
    interface FastifyRequest {
        rawBody: Buffer | undefined;
        webhook: VerifiedWebhook | undefined;
    }
    interface FastifyContextConfig {
        webhook?: boolean | Partial<FastifyWebhookOptions>;
    }
}
export interface FastifyWebhookOptions extends VerifierOptions {
    bodyLimit?: number;
}
export declare const webhooks: FastifyPluginAsync<FastifyWebhookOptions>;
export default webhooks;

// (dist/verify.d.ts: above)
// (dist/crypto.d.ts: above)
// (dist/keys.d.ts: above)
// (dist/headers.d.ts: above)
// ===== ./express → ./dist/express.d.ts
// --- dist/express.d.ts
import type { RequestHandler } from "express";
import { type VerifiedWebhook, type VerifierOptions } from "./verify.js";
declare global {
    namespace Express {
        interface Request {
            rawBody?: Buffer;
            webhook?: VerifiedWebhook;
        }
    }
}
export interface ExpressWebhookOptions extends VerifierOptions {
    bodyLimit?: number;
    parseJson?: boolean;
}
export declare function verifyWebhook(options: ExpressWebhookOptions): RequestHandler;
export default verifyWebhook;

// (dist/verify.d.ts: above)
// (dist/crypto.d.ts: above)
// (dist/keys.d.ts: above)
// (dist/headers.d.ts: above)
// ===== ./hono → ./dist/hono.d.ts
// --- dist/hono.d.ts
import type { MiddlewareHandler } from "hono";
import { type VerifiedWebhook, type VerifierOptions } from "./verify.js";
export interface HonoWebhookOptions extends VerifierOptions {
    bodyLimit?: number;
}
export type WebhookVariables = {
    webhook: VerifiedWebhook;
    rawBody: Uint8Array;
};
export declare function verifyWebhook(options: HonoWebhookOptions): MiddlewareHandler<{
    Variables: WebhookVariables;
}>;
export default verifyWebhook;

// (dist/verify.d.ts: above)
// (dist/crypto.d.ts: above)
// (dist/keys.d.ts: above)
// (dist/headers.d.ts: above)
// ===== ./inbox → ./dist/inbox.d.ts
// --- dist/inbox.d.ts
import { type Queryable, type Sql, type Tx } from "@surety/db";
export declare const migrations: import("@surety/db").MigrationSet;
export interface InboxOptions {
    schema?: string;
    consumer?: string;
    now?: () => number;
}
export interface InboxEvent {
    id: string;
    consumer?: string;
}
export type Received<T> = {
    kind: "processed";
    duplicate: false;
    result: T;
} | {
    kind: "duplicate";
    duplicate: true;
};
export interface Inbox {
    receive<T>(tx: Tx, event: InboxEvent, handler: (tx: Tx) => Promise<T>): Promise<Received<T>>;
    migrate(sql: Sql): Promise<void>;
    purge(sql: Queryable, olderThan: Date): Promise<number>;
}
export declare function createInbox(options?: InboxOptions): Inbox;
export declare function receive<T>(tx: Tx, event: InboxEvent, handler: (tx: Tx) => Promise<T>): Promise<Received<T>>;
