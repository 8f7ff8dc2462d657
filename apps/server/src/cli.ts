#!/usr/bin/env node
import { openSql } from '@surety/db';
import { Webhooks } from '@surety/webhooks';
import pino from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { runMigrations, startServer, startWorker } from './server.js';

const USAGE = `Usage: surety <command>

Commands:
  serve      run the API and a webhook delivery worker (SURETY_WORKER=off: the API alone); migrates first
  worker     run a webhook delivery worker alone (any number, on one database)
  migrate    apply database migrations and exit

Settings come from the environment: PORT, HOST, DATABASE_URL (unset: embedded PGlite in
SURETY_DATA_DIR, default ./.surety), SURETY_API_KEYS ("tenant:key,..."), LOG_LEVEL.
See docs/operations.md.`;

function banner(key: string): void {
  const line = '!'.repeat(78);
  process.stderr.write(
    `\n${line}\n!! DEV MODE: SURETY_API_KEYS is not set.\n` +
      `!! A development key was generated for tenant "dev" (kept in SURETY_DATA_DIR):\n!!\n` +
      `!!   Authorization: Bearer ${key}\n!!\n` +
      `!! Set SURETY_API_KEYS=tenant:key,... for real use (NODE_ENV=production refuses to start without it).\n` +
      `${line}\n\n`,
  );
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (rest.length > 0 && rest[0] !== '--help') {
    process.stderr.write(`surety ${command}: unexpected argument ${JSON.stringify(rest[0])}\n\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      if (config.devMode && config.devKey) banner(config.devKey);
      const running = await startServer(config);
      let signals = 0;
      const shutdown = (signal: string) => {
        signals++;
        if (signals > 1) process.exit(1);
        running.app.log.info({ signal }, 'draining in-flight requests, then exiting');
        running.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            running.app.log.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
      return -1; // keep running
    }
    case 'worker': {
      if (!config.databaseUrl) {
        process.stderr.write(
          'surety worker: the embedded database belongs to one process; set DATABASE_URL to run workers apart, ' +
            'or use `surety serve`, which runs a worker in-process\n',
        );
        return 2;
      }
      const sql = await openSql({ databaseUrl: config.databaseUrl, applicationName: 'surety-worker' });
      await runMigrations(sql, config.schema);
      const log = pino({ level: config.logLevel });
      const webhooks = new Webhooks({
        sql,
        schema: config.schema,
        allowHttp: config.webhookAllowHttp,
        allowList: config.webhookAllowList,
      });
      const worker = startWorker(webhooks, config, log);
      await worker.start();
      log.info({ worker: worker.id }, 'delivery worker started');
      const shutdown = () => {
        log.info({}, 'finishing attempts in flight, then exiting');
        worker
          .stop()
          .then(() => sql.close())
          .then(
            () => process.exit(0),
            () => process.exit(1),
          );
      };
      process.on('SIGTERM', shutdown);
      process.on('SIGINT', shutdown);
      return -1;
    }
    case 'migrate': {
      const sql = await openSql({
        databaseUrl: config.databaseUrl,
        dataDir: config.databaseUrl ? undefined : `${config.dataDir}/db`,
      });
      const { applied } = await runMigrations(sql, config.schema);
      await sql.close();
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
      return 0;
    }
    default:
      process.stderr.write(`surety: unknown command ${JSON.stringify(command)}\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`surety: ${error.message}\n`);
    else
      process.stderr.write(
        `surety: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    process.exit(1);
  },
);
