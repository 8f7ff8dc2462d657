// The public API of @surety/db (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export type { CursorPart, CursorValues, KeysetCursor } from "./cursor.js";
export { cursorTimestampSql, keysetCursor } from "./cursor.js";
export type { DriverConnection, DriverSqlOptions } from "./driver-sql.js";
export { createDriverSql, driverTx } from "./driver-sql.js";
export type { PgErrorInfo } from "./error-info.js";
export { pgErrorInfo } from "./error-info.js";
export type { DbErrorCode } from "./errors.js";
export { classify, DatabaseUnavailableError, DbError, InvalidCursorError, isConnectionError, isDatabaseUnavailableError, isDbError, isInvalidCursorError, isMissingPeerError, isNestedTransactionError, isPoolerMisconfiguredError, isTransactionOwnedError, MissingPeerError, NestedTransactionError, PoolerMisconfiguredError, sqlState, TransactionOwnedError, } from "./errors.js";
export type { JoinedTransaction, OuterTransaction, PipelinedStatement } from "./join.js";
export { joinTransaction } from "./join.js";
export { literal } from "./literal.js";
export type { MigrateOptions, Migration, MigrationSet } from "./migrate.js";
export { loadMigrations, migrate, quoteSchema } from "./migrate.js";
export type { OpenSqlOptions } from "./open.js";
export { openSql } from "./open.js";
export type { PgSqlOptions } from "./pg.js";
export { createPgSql } from "./pg.js";
export type { PgliteInstance, PgliteQueryable, PgliteResult, PgliteSqlOptions } from "./pglite.js";
export { createPgliteSql } from "./pglite.js";
export type { PoolerMode } from "./pooler.js";
export { detectTransactionPooler } from "./pooler.js";
export type { Unstorable, UnstorableReason } from "./storable.js";
export { findUnstorable, isStorableTimestamp } from "./storable.js";
export type { FirstStatement, ParameterizedStatement, Queryable, QueryField, QueryOptions, QueryResult, Sql, Statement, Tx, TxDriver, } from "./types.js";

// --- dist/cursor.d.ts
export type CursorPart = "timestamp" | "text" | "bigint";
export type CursorValues<P extends readonly CursorPart[]> = {
    [K in keyof P]: string;
};
export interface KeysetCursor<P extends readonly CursorPart[]> {
    readonly parts: P;
    encode(values: CursorValues<P>): string;
    decode(cursor: string): CursorValues<P>;
}
export declare function keysetCursor<const P extends readonly CursorPart[]>(...parts: P): KeysetCursor<P>;
export declare const cursorTimestampSql: (column: string) => string;

// --- dist/driver-sql.d.ts
import type { QueryOptions, QueryResult, Sql, Tx } from "./types.js";
export interface DriverConnection {
    query(text: string, params: readonly unknown[], options: QueryOptions): Promise<QueryResult<unknown>>;
    exec?(script: string): Promise<unknown>;
}
export interface DriverSqlOptions<C> {
    name: string;
    connection: DriverConnection;
    transaction<T>(fn: (connection: DriverConnection, client: C) => Promise<T>): Promise<T>;
    listen?: Sql["listen"];
    notify?: Sql["notify"];
    close?: () => Promise<void>;
}
export declare function createDriverSql<C>(options: DriverSqlOptions<C>): Sql;
export declare function driverTx<C>(options: {
    name: string;
    client: C;
    connection: DriverConnection;
}): Tx;

// --- dist/types.d.ts
export interface Statement {
    readonly name?: string;
    readonly text: string;
}
import type pg from "pg";
export interface QueryResult<R> {
    rows: R[];
    rowCount: number;
    command: string;
    fields: readonly QueryField[];
}
export interface QueryField {
    readonly name: string;
    readonly dataTypeID: number;
}
export interface QueryOptions {
    rowMode?: "object" | "array";
}
export interface Queryable {
    query<R = Record<string, unknown>>(statement: string | Statement, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
}
export interface PgliteQueryable {
    query<R>(query: string, params?: unknown[], options?: {
        rowMode?: "object" | "array";
    }): Promise<PgliteResult<R>>;
    exec(query: string): Promise<PgliteResult<unknown>[]>;
}
export interface PgliteResult<R> {
    rows: R[];
    affectedRows?: number;
    command?: string;
    fields?: readonly {
        name: string;
        dataTypeID: number;
    }[];
}
export type TxDriver = {
    readonly kind: "pg";
    readonly client: pg.PoolClient;
} | {
    readonly kind: "pglite";
    readonly client: PgliteQueryable;
} | {
    readonly kind: "driver";
    readonly name: string;
    readonly client: unknown;
};
export interface Tx extends Queryable {
    readonly inTransaction: true;
    readonly driver: TxDriver;
    exec(script: string): Promise<void>;
    atCommit(statement: string | ParameterizedStatement): void;
    afterCommit(callback: () => void): void;
}
export interface TransactionOptions {
    first?: string | FirstStatement;
}
export interface ParameterizedStatement {
    statement: Statement;
    params: readonly unknown[];
}
export interface FirstStatement {
    statement: Statement;
    params: readonly unknown[];
    before?: readonly {
        statement: Statement;
        params: readonly unknown[];
    }[];
}
export interface Sql extends Queryable {
    readonly kind: "pg" | "pglite" | "driver";
    transaction<T>(fn: (tx: Tx, first: QueryResult<Record<string, unknown>> | undefined) => Promise<T>, options?: TransactionOptions): Promise<T>;
    listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
    notify(channel: string, payload?: string): Promise<void>;
    close(): Promise<void>;
}

// --- dist/error-info.d.ts
export interface PgErrorInfo {
    readonly code: string;
    readonly constraint?: string;
    readonly table?: string;
    readonly schema?: string;
    readonly message: string;
}
export declare function pgErrorInfo(error: unknown): PgErrorInfo | undefined;

// --- dist/errors.d.ts
export type DbErrorCode = "SURETY_DB_UNAVAILABLE" | "SURETY_DB_POOLER_MISCONFIGURED" | "SURETY_INVALID_CURSOR" | "SURETY_DB_MISSING_PEER" | "SURETY_DB_NESTED_TRANSACTION" | "SURETY_DB_TRANSACTION_OWNED";
export declare class DbError extends Error {
    readonly code: DbErrorCode;
    constructor(code: DbErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export declare const isDbError: (value: unknown) => value is DbError;
export declare class DatabaseUnavailableError extends DbError {
    readonly code: "SURETY_DB_UNAVAILABLE" | "SURETY_DB_POOLER_MISCONFIGURED";
    constructor(message: string, options?: {
        cause?: unknown;
    }, code?: "SURETY_DB_UNAVAILABLE" | "SURETY_DB_POOLER_MISCONFIGURED");
}
export declare class PoolerMisconfiguredError extends DatabaseUnavailableError {
    readonly code: "SURETY_DB_POOLER_MISCONFIGURED";
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
export declare class InvalidCursorError extends DbError {
    readonly code: "SURETY_INVALID_CURSOR";
    constructor(message?: string);
}
export declare const isInvalidCursorError: (value: unknown) => value is InvalidCursorError;
export declare const isDatabaseUnavailableError: (value: unknown) => value is DatabaseUnavailableError;
export declare const isPoolerMisconfiguredError: (value: unknown) => value is PoolerMisconfiguredError;
export declare function isConnectionError(error: unknown): boolean;
export declare function classify(error: unknown): unknown;
export declare function sqlState(error: unknown): string | undefined;
export declare class MissingPeerError extends DbError {
    readonly code: "SURETY_DB_MISSING_PEER";
    readonly packageName: string;
    constructor(packageName: string, feature: string, options?: {
        cause?: unknown;
    });
}
export declare const isMissingPeerError: (value: unknown) => value is MissingPeerError;
export declare class NestedTransactionError extends DbError {
    readonly code: "SURETY_DB_NESTED_TRANSACTION";
    constructor(statement: string, reason?: string);
}
export declare const isNestedTransactionError: (value: unknown) => value is NestedTransactionError;
export declare class TransactionOwnedError extends DbError {
    readonly code: "SURETY_DB_TRANSACTION_OWNED";
    constructor(message: string);
}
export declare const isTransactionOwnedError: (value: unknown) => value is TransactionOwnedError;

// --- dist/join.d.ts
import type { Queryable, QueryResult, Sql, Statement, Tx } from "./types.js";
export interface PipelinedStatement {
    statement: string | Statement;
    params?: readonly unknown[];
}
export interface OuterTransaction {
    name: string;
    query: Queryable["query"];
    pipeline?: (statements: readonly PipelinedStatement[]) => Promise<QueryResult<Record<string, unknown>>[]>;
    exec?: (script: string) => Promise<unknown>;
    savepoint?: <T>(fn: (inner: OuterTransaction) => Promise<T>) => Promise<T>;
    client: unknown;
}
export interface JoinedTransaction extends Sql, Tx {
    committed(): void;
}
export declare function joinTransaction(outer: OuterTransaction): JoinedTransaction;

// --- dist/literal.d.ts
export declare function literal(value: string | number | boolean | null): string;

// --- dist/migrate.d.ts
import type { Sql } from "./types.js";
export interface Migration {
    readonly id: number;
    readonly name: string;
    readonly script: string;
}
export interface MigrationSet {
    readonly set: string;
    readonly migrations: readonly Migration[];
}
export declare function loadMigrations(set: string, dir: URL): MigrationSet;
export declare function quoteSchema(schema: string): string;
export interface MigrateOptions {
    schema?: string;
    sets: readonly MigrationSet[];
}
export declare function migrate(sql: Sql, options: MigrateOptions): Promise<{
    applied: string[];
}>;

// --- dist/open.d.ts
import { type PoolerMode } from "./pooler.js";
import type { Sql } from "./types.js";
export interface OpenSqlOptions {
    databaseUrl?: string | undefined;
    dataDir?: string | undefined;
    max?: number;
    applicationName?: string;
    onError?: (error: Error) => void;
    pooler?: PoolerMode;
    listenUrl?: string | undefined;
}
export declare function openSql(options: OpenSqlOptions): Promise<Sql>;

// --- dist/pooler.d.ts
import type pg from "pg";
import type { Statement } from "./types.js";
export type PoolerMode = "none" | "transaction";
export declare const POOLER_SETTING = "SURETY_DATABASE_POOLER=transaction (createPgSql({ pooler: \"transaction\" }))";
export declare function forPooler(statement: string | Statement, mode: PoolerMode): string | Statement;
export declare function classifyPg(error: unknown): unknown;
export declare function detectTransactionPooler(settings: pg.ClientConfig): Promise<boolean>;

// --- dist/pg.d.ts
import pg from "pg";
import { type PoolerMode } from "./pooler.js";
import type { QueryOptions, QueryResult, Sql, Statement } from "./types.js";
export interface PgSqlOptions {
    connectionString?: string;
    pool?: pg.Pool;
    max?: number;
    connectionTimeoutMillis?: number;
    applicationName?: string;
    onError?: (error: Error) => void;
    pooler?: PoolerMode;
    listenUrl?: string;
}
type PgQueryable = pg.Pool | pg.PoolClient;
export declare function run<R>(target: PgQueryable, statement: string | Statement, params: readonly unknown[] | undefined, options?: QueryOptions): Promise<QueryResult<R>>;
export declare function createPgSql(options?: PgSqlOptions): Sql;
export {};

// --- dist/pglite.d.ts
import { type PgliteInstance } from "./load-pglite.js";
import type { PgliteQueryable, QueryOptions, QueryResult, Sql, Statement } from "./types.js";
export type { PgliteInstance } from "./load-pglite.js";
export type { PgliteQueryable, PgliteResult } from "./types.js";
export interface PgliteSqlOptions {
    dataDir?: string;
    db?: PgliteInstance;
}
export declare function run<R>(target: PgliteQueryable, statement: string | Statement, params: readonly unknown[] | undefined, options?: QueryOptions): Promise<QueryResult<R>>;
export declare function createPgliteSql(options?: PgliteSqlOptions): Promise<Sql>;

// --- dist/load-pglite.d.ts
import type { PgliteQueryable } from "./types.js";
export interface PgliteInstance extends PgliteQueryable {
    readonly waitReady: Promise<void>;
    readonly closed: boolean;
    transaction<T>(callback: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
    listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
    close(): Promise<void>;
}
export declare const PGLITE_PACKAGE = "@electric-sql/pglite";
export declare function loadPglite(importer?: () => Promise<unknown>, specifier?: string): Promise<new (dataDir?: string) => PgliteInstance>;

// --- dist/storable.d.ts
export type UnstorableReason = "nul" | "lone_surrogate";
export interface Unstorable {
    path: string;
    reason: UnstorableReason;
    message: string;
}
export declare function unstorableReason(s: string): UnstorableReason | undefined;
export declare const printable: (s: string) => string;
export declare function findUnstorable(value: unknown, basePath?: string): Unstorable | undefined;
export declare const STORABLE_TIMESTAMP_RANGE: {
    readonly minMs: -62135596800000;
    readonly maxMs: 253402300799999;
};
export declare function isStorableTimestamp(at: Date | number): boolean;

// ===== ./testing → ./dist/testing.d.ts
// --- dist/testing.d.ts
import type { Sql } from "./types.js";
export declare const postgresUrl: string | undefined;
export declare const poolerOptions: {
    pooler?: "transaction";
    listenUrl?: string;
};
export declare const directOnly: string | false;
export declare const needsPostgres: string | false;
export interface TestDatabase {
    sql: Sql;
    schema: string;
    backend: "pg" | "pglite";
    connect(max?: number): Sql;
    close(): Promise<void>;
}
export declare function createTestDatabase(options?: {
    max?: number;
}): Promise<TestDatabase>;

// (dist/types.d.ts: above)
// ===== ./kysely → ./dist/kysely.d.ts
// --- dist/kysely.d.ts
import { Kysely, type KyselyPlugin, type Transaction } from "kysely";
import type { Sql, Tx } from "./types.js";
export interface KyselyOfOptions {
    plugins?: KyselyPlugin[];
}
export declare function kyselyOf<DB>(tx: Tx, options?: KyselyOfOptions): Kysely<DB>;
export declare function kyselySql<DB>(db: Kysely<DB>): Sql;
export declare function kyselyTx<DB>(trx: Transaction<DB>): Tx;

// (dist/types.d.ts: above)
// ===== ./drizzle → ./dist/drizzle.d.ts
// --- dist/drizzle.d.ts
import type { DrizzleConfig } from "drizzle-orm";
import { type TxDrizzle } from "./drizzle-shared.js";
import type { Tx } from "./types.js";
export { drizzleSql, drizzleTx, type TxDrizzle } from "./drizzle-shared.js";
export declare function drizzleOf<TSchema extends Record<string, unknown> = Record<string, never>>(tx: Tx, config?: DrizzleConfig<TSchema>): TxDrizzle<TSchema>;

// --- dist/drizzle-shared.d.ts
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { Savepoints } from "./savepoints.js";
import type { Sql, Tx } from "./types.js";
export declare const NAME = "drizzle";
export type TxDrizzle<TSchema extends Record<string, unknown> = Record<string, never>> = PgDatabase<PgQueryResultHKT, TSchema>;
export declare function guarded(levels: Savepoints, text: string): string;
export declare function drizzleSql<TSchema extends Record<string, unknown>>(db: PgDatabase<PgQueryResultHKT, TSchema>): Sql;
export declare function drizzleTx<TSchema extends Record<string, unknown>>(trx: PgDatabase<PgQueryResultHKT, TSchema>): Tx;
export declare function ownDrizzle<TSchema extends Record<string, unknown>>(tx: Tx): TxDrizzle<TSchema> | undefined;

// --- dist/savepoints.d.ts
export interface Savepoints {
    begin(): string;
    commit(): string;
    rollback(): string;
    translate(text: string): string;
}
export declare function savepoints(prefix: string): Savepoints;

// (dist/types.d.ts: above)
// ===== ./drizzle-pglite → ./dist/drizzle-pglite.d.ts
// --- dist/drizzle-pglite.d.ts
import { type DrizzleConfig } from "drizzle-orm";
import { type TxDrizzle } from "./drizzle-shared.js";
import type { Tx } from "./types.js";
export { drizzleSql, drizzleTx, type TxDrizzle } from "./drizzle-shared.js";
export declare function drizzleOf<TSchema extends Record<string, unknown> = Record<string, never>>(tx: Tx, config?: DrizzleConfig<TSchema>): TxDrizzle<TSchema>;

// (dist/drizzle-shared.d.ts: above)
// (dist/savepoints.d.ts: above)
// (dist/types.d.ts: above)
// ===== ./knex → ./dist/knex.d.ts
// --- dist/knex.d.ts
import { type Knex } from "knex";
import type { Sql, Tx } from "./types.js";
export interface KnexOfOptions {
    config?: Omit<Knex.Config, "client" | "connection" | "pool">;
}
export declare function knexOf(tx: Tx, options?: KnexOfOptions): Knex;
export declare function knexSql(knex: Knex): Sql;
export declare function knexTx(trx: Knex.Transaction): Tx;

// (dist/types.d.ts: above)
// ===== ./postgres-js → ./dist/postgres-js.d.ts
// --- dist/postgres-js.d.ts
import type postgres from "postgres";
import { type JoinedTransaction } from "./join.js";
import type { Sql, Tx } from "./types.js";
export declare function postgresOf(tx: Tx): postgres.TransactionSql;
export declare function postgresSql(pgjs: postgres.Sql, options?: {
    end?: boolean;
}): Sql;
export declare function postgresTx(trx: postgres.TransactionSql): JoinedTransaction;
export declare function postgresBegin<T>(pgjs: postgres.Sql, fn: (trx: postgres.TransactionSql, joined: JoinedTransaction) => Promise<T>): Promise<T>;

// (dist/join.d.ts: above)
// (dist/types.d.ts: above)
// ===== ./typeorm → ./dist/typeorm.d.ts
// --- dist/typeorm.d.ts
import type { DataSource, EntityManager, QueryRunner } from "typeorm";
import { type JoinedTransaction } from "./join.js";
import type { Sql, Tx } from "./types.js";
export declare function typeormOf(dataSource: DataSource, tx: Tx): EntityManager;
export declare function typeormTx(from: EntityManager | QueryRunner): JoinedTransaction;
export declare function typeormTransaction<T>(dataSource: DataSource, fn: (manager: EntityManager, joined: JoinedTransaction) => Promise<T>): Promise<T>;
export declare function typeormSql(dataSource: DataSource): Sql;

// (dist/join.d.ts: above)
// (dist/types.d.ts: above)
// ===== ./prisma → ./dist/prisma.d.ts
// --- dist/prisma.d.ts
export { onSurety, prismaAdapterOnSurety } from "./prisma-adapter.js";
import { type JoinedTransaction } from "./join.js";
import type { Sql, Tx } from "./types.js";
export interface PrismaTransactionClient {
    $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
    $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}
export interface PrismaInteractive<TxClient> {
    $transaction<T>(fn: (tx: TxClient) => Promise<T>, options?: {
        maxWait?: number;
        timeout?: number;
    }): Promise<T>;
}
export interface PrismaClientLike<TxClient extends PrismaTransactionClient = PrismaTransactionClient> {
    $transaction<T>(fn: (tx: TxClient) => Promise<T>, options?: {
        maxWait?: number;
        timeout?: number;
        isolationLevel?: string;
    }): Promise<T>;
}
export declare function prismaSql<TxClient extends PrismaTransactionClient>(prisma: PrismaClientLike<TxClient> & PrismaTransactionClient, options?: {
    maxWait?: number;
    timeout?: number;
}): Sql;
export declare function prismaOf<TxClient = PrismaTransactionClient>(tx: Tx): TxClient;
export declare function prismaTx(tx: PrismaTransactionClient): JoinedTransaction;
export declare function prismaTransaction<TxClient extends PrismaTransactionClient, T>(prisma: PrismaClientLike<TxClient>, fn: (tx: TxClient, joined: JoinedTransaction) => Promise<T>, options?: {
    maxWait?: number;
    timeout?: number;
}): Promise<T>;
export declare function prismaOnSurety<TxClient, T>(tx: Tx, prisma: PrismaInteractive<TxClient>, fn: (db: TxClient) => Promise<T>, options?: {
    maxWait?: number;
    timeout?: number;
}): Promise<T>;

// --- dist/prisma-adapter.d.ts
import { PrismaPg } from "@prisma/adapter-pg";
import type { Tx } from "./types.js";
export declare function prismaAdapterOnSurety(options?: {
    schema?: string;
}): PrismaPg;
export declare function onSurety<T>(tx: Tx, fn: () => PromiseLike<T>): Promise<T>;

// (dist/types.d.ts: above)
// (dist/join.d.ts: above)
