// NestJS on the Express platform with @surety/idempotency/nestjs. Installs: @nestjs/common,
// @nestjs/core, @nestjs/platform-express, reflect-metadata, rxjs, pg.
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { createPgSql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { check } from './check.js';
import { paymentsModule, prepare } from './nest-module.js';

const schema = `smoke_nest_express_${process.pid}`;
const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
const count = await prepare(sql, schema);
const engine = createIdempotency({ sql, schema });
await engine.migrate();
const app = await NestFactory.create(paymentsModule(engine, schema), { logger: false });
await app.listen(0, '127.0.0.1');

await check('NestJS (Express platform)', {
  url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`,
  count,
  close: async () => {
    await app.close();
    await sql.query(`drop schema ${schema} cascade`);
    await sql.close();
  },
});
