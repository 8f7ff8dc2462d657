// The public API of @surety/webhook-verify: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/webhook-verify
export interface CryptoBackend {
    readonly name: 'node' | 'web';
    hmac(key: HmacKey, prefix: string, body: string | Uint8Array): Uint8Array | Promise<Uint8Array>;
    ed25519Sign(key: Ed25519Key, prefix: string, body: string | Uint8Array): Uint8Array | Promise<Uint8Array>;
    ed25519Verify(key: Ed25519Key, prefix: string, body: string | Uint8Array, signature: Uint8Array): boolean | Promise<boolean>;
    ed25519PublicKey(key: Ed25519Key): Uint8Array | Promise<Uint8Array>;
    equal(a: Uint8Array, b: Uint8Array): boolean;
}
export declare const DEFAULT_BODY_LIMIT: number;
export declare const DEFAULT_TOLERANCE_SECONDS = 300;
export type HeadersLike = {
    get(name: string): string | null;
} | Readonly<Record<string, string | readonly string[] | undefined>>;
export { PROBLEM_CONTENT_TYPE } from "@surety/core";
export declare const PUBLIC_KEY_PREFIX = "whpk_";
export declare const ReceiverErrorCode: {
    readonly BodyTooLarge: "SURETY_WEBHOOK_BODY_TOO_LARGE";
    readonly InvalidJson: "SURETY_WEBHOOK_INVALID_JSON";
    readonly RawBodyUnavailable: "SURETY_WEBHOOK_RAW_BODY_UNAVAILABLE";
};
export declare const SECRET_PREFIX = "whsec_";
export declare const SIGNING_KEY_PREFIX = "whsk_";
export type Secret = string | Uint8Array;
export interface SignInput {
    id: string;
    body: string | Uint8Array;
    secrets: Secret | readonly Secret[];
    format?: WebhookFormat;
    timestamp?: number | Date;
    now?: () => number;
    backend?: CryptoBackend;
}
export interface VerifiedWebhook {
    format: WebhookFormat;
    id: string | undefined;
    idSigned: boolean;
    timestamp: number;
    signature: 'v1' | 'v1a';
    secretIndex: number;
}
export interface Verifier {
    verify(body: string | Uint8Array, headers: HeadersLike): Promise<VerifiedWebhook>;
    verifySync(body: string | Uint8Array, headers: HeadersLike): VerifiedWebhook;
}
export interface VerifierOptions {
    secrets: Secret | readonly Secret[];
    format?: 'auto' | WebhookFormat;
    toleranceSeconds?: number;
    now?: () => number;
    backend?: CryptoBackend;
}
export interface VerifyInput extends VerifierOptions {
    body: string | Uint8Array;
    headers: HeadersLike;
}
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
export type WebhookFormat = 'surety' | 'standard';
export type WebhookHeaders = {
    'webhook-id': string;
    'webhook-timestamp': string;
    'webhook-signature': string;
};
export type WebhookProblem = Problem;
export declare class WebhookVerificationError extends Error {
    readonly code: WebhookErrorCode;
    constructor(code: WebhookErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export declare function createVerifier(options: VerifierOptions): Verifier;
export declare function generateSecret(bytes?: number): string;
export declare function generateSigningKey(): Promise<{
    signingKey: string;
    publicKey: string;
}>;
export declare const isWebhookVerificationError: (value: unknown) => value is WebhookVerificationError;
export { problemBody } from "@surety/core";
export declare function problemForError(error: unknown): WebhookProblem | undefined;
export declare function sign(input: SignInput): Promise<WebhookHeaders>;
export declare function signSync(input: SignInput): WebhookHeaders;
export declare function verify(input: VerifyInput): Promise<VerifiedWebhook>;
export declare function verifySync(input: VerifyInput): VerifiedWebhook;
export declare function webhookProblem(code: string, detail: string): WebhookProblem;

// ===== @surety/webhook-verify/fastify
export interface FastifyWebhookOptions extends VerifierOptions {
    bodyLimit?: number;
}
export declare const webhooks: FastifyPluginAsync<FastifyWebhookOptions>;
export { webhooks as default }; // as in @surety/webhook-verify/fastify

// ===== @surety/webhook-verify/express
export interface ExpressWebhookOptions extends VerifierOptions {
    bodyLimit?: number;
    parseJson?: boolean;
}
export declare function verifyWebhook(options: ExpressWebhookOptions): RequestHandler;
export { verifyWebhook as default }; // as in @surety/webhook-verify/express

// ===== @surety/webhook-verify/hono
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
export { verifyWebhook as default }; // as in @surety/webhook-verify/hono

// ===== @surety/webhook-verify/inbox
export interface Inbox {
    receive<T>(tx: Tx, event: InboxEvent, handler: (tx: Tx) => Promise<T>): Promise<Received<T>>;
    migrate(sql: Sql): Promise<void>;
    purge(sql: Queryable, olderThan: Date): Promise<number>;
}
export interface InboxEvent {
    id: string;
    consumer?: string;
}
export interface InboxOptions {
    schema?: string;
    consumer?: string;
    now?: () => number;
}
export type Received<T> = {
    kind: 'processed';
    duplicate: false;
    result: T;
} | {
    kind: 'duplicate';
    duplicate: true;
};
export declare function createInbox(options?: InboxOptions): Inbox;
export declare const migrations: import("@surety/db").MigrationSet;
export declare function receive<T>(tx: Tx, event: InboxEvent, handler: (tx: Tx) => Promise<T>): Promise<Received<T>>;

// ----- reachable, not exported: named by the declarations above, so their shape is part of the API
export interface Ed25519Key {
    kind: 'ed25519';
    index: number;
    seed: Uint8Array | undefined;
    publicKey: Uint8Array | undefined;
}
export interface HmacKey {
    kind: 'hmac';
    index: number;
    bytes: Uint8Array;
}
