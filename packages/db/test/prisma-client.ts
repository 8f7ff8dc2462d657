// A Prisma 7 client for the tests, generated at setup into the ignored `.tmp/` of the repository
// (never committed). `prisma generate` needs no database, but its CLI first fetches a schema-engine
// binary from outside the npm registry; the engine is not used to generate, so PRISMA_SCHEMA_ENGINE_BINARY
// points it at a stub that refuses to run (this is also why `prisma migrate` cannot run here: the
// tests create their tables in SQL). CHECKPOINT_DISABLE turns off the CLI's update check.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { PrismaClientLike, PrismaTransactionClient } from '../src/prisma.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

const SCHEMA = `generator client {
  provider     = "prisma-client"
  output       = "./generated"
  runtime      = "nodejs"
  moduleFormat = "esm"
}

datasource db {
  provider = "postgresql"
}

model Order {
  id    Int    @id @default(autoincrement())
  note  String @unique
  lines Line[]

  @@map("orders")
}

model Line {
  id      Int    @id @default(autoincrement())
  orderId Int    @map("order_id")
  note    String
  order   Order  @relation(fields: [orderId], references: [id])

  @@map("lines")
}
`;

/** What the tests use of the generated client: the Order model and the raw-SQL methods. */
export interface OrderTx extends PrismaTransactionClient {
  order: {
    create(args: {
      data: { note: string; lines?: { create: { note: string }[] } };
    }): Promise<{ id: number; note: string }>;
    findMany(): Promise<{ id: number; note: string }[]>;
    findUnique(args: { where: { id?: number; note?: string } }): Promise<{ id: number; note: string } | null>;
  };
}
export interface TestPrisma extends PrismaClientLike<OrderTx>, OrderTx {
  line: { count(): Promise<number> };
  $disconnect(): Promise<void>;
}
export type PrismaClientClass = new (options: { adapter: unknown }) => TestPrisma;

/** Generates the client into a fresh directory; resolves to its PrismaClient class and a cleanup. */
export async function generatePrismaClient(): Promise<{
  PrismaClient: PrismaClientClass;
  /** The generated client module (client.ts). */
  path: string;
  remove(): Promise<void>;
}> {
  const dir = join(root, '.tmp', `prisma-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  const schema = join(dir, 'schema.prisma');
  const stub = join(dir, 'schema-engine-stub');
  await writeFile(schema, SCHEMA);
  await writeFile(
    stub,
    '#!/bin/sh\necho "schema engine stub: the tests create their tables in SQL" >&2\nexit 1\n',
  );
  await chmod(stub, 0o755);
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve('prisma/package.json')), 'build', 'index.js');
  await promisify(execFile)(process.execPath, [cli, 'generate', '--schema', schema], {
    cwd: dir,
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: stub,
      CHECKPOINT_DISABLE: '1',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
    timeout: 120_000,
  });
  const path = join(dir, 'generated', 'client.ts');
  const generated = (await import(pathToFileURL(path).href)) as { PrismaClient: PrismaClientClass };
  return {
    PrismaClient: generated.PrismaClient,
    path,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
