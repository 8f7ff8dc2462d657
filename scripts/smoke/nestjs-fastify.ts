// NestJS on the Fastify platform with @surety/idempotency/nestjs. Installs: @nestjs/common,
// @nestjs/core, @nestjs/platform-fastify, reflect-metadata, rxjs, pg.
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { check } from './check.js';
import { paymentsModule } from './nest-module.js';
import { suretyOnPg, urlOf } from './surety.js';

const { schema, engine, count, drop } = await suretyOnPg('nest_fastify');
const app = await NestFactory.create(paymentsModule(engine, schema), new FastifyAdapter(), { logger: false });
await app.listen(0, '127.0.0.1');

await check('NestJS (Fastify platform)', {
  url: await urlOf(app.getHttpServer()),
  count,
  close: async () => {
    await app.close();
    await drop();
  },
});
