// NestJS on the Express platform with @surety/idempotency/nestjs. Installs: @nestjs/common,
// @nestjs/core, @nestjs/platform-express, reflect-metadata, rxjs, pg.
import { NestFactory } from '@nestjs/core';
import { check } from './check.js';
import { paymentsModule } from './nest-module.js';
import { suretyOnPg, urlOf } from './surety.js';

const { schema, engine, count, drop } = await suretyOnPg('nest_express');
const app = await NestFactory.create(paymentsModule(engine, schema), { logger: false });
await app.listen(0, '127.0.0.1');

await check('NestJS (Express platform)', {
  url: await urlOf(app.getHttpServer()),
  count,
  close: async () => {
    await app.close();
    await drop();
  },
});
