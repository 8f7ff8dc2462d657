#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runContractsCli } from '@surety/events';
import { runProbeCli } from '@surety/probe';
import { runLintCli } from '@surety/spectral-rules/lint';
import { Webhooks } from '@surety/webhooks';
import pino from 'pino';
import { eventValidator } from './app.js';
import { CliError, clientOptions, listen, trigger } from './cli-client.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { migrateService, openServiceSql } from './database.js';
import { traceFields } from './log-trace.js';
import { runPsp } from './psp/cli.js';
import { startServer, startWorker } from './server.js';
import { serviceRegistry } from './service-events.js';
import { shutdownTelemetry } from './telemetry.js';

const USAGE = `Usage: surety <command> [options]

Service:
  serve                 run the API and a webhook delivery worker (SURETY_WORKER=off: the API alone);
                        migrates first
  worker                run a webhook delivery worker alone (any number, on one PostgreSQL)
  migrate               apply database migrations and exit

Developer:
  trigger <event-type>  publish a sample event of that type   [--data JSON] [--url] [--api-key]
  listen                receive webhooks here: registers a temporary endpoint, prints each event with
                        its verification result, forwards it   [--forward-to URL] [--events a,b]
                        [--port N] [--url] [--api-key]; the endpoint is removed on exit
  psp                   run the simulated payment provider alone (demos, tests; no real money)
                        [--port N] [--host 127.0.0.1] [--fail-after-charge 0.1] [--drop 0.1]
                        [--slow 0.1] [--slow-ms 2000]
  contracts <cmd>       the event contract: diff <old> <new> | check [file] | generate [--out]

Any API (docs/contracts.md):
  lint <file or URL>    hold an OpenAPI 3.x document to the reliability ruleset   [--json]
                        [--refs none|files|remote] [--fail-on error|warn]; exit 1 on an error
  probe <url>           test a running operation against the Idempotency-Key draft and RFC 9110
                        preconditions   [--method POST] [--body JSON] [--header 'Name: value']...
                        [--json] [--strict]; exit 1 on a MUST failure

Service settings come from the environment: PORT, HOST, DATABASE_URL (unset: embedded PGlite in
SURETY_DATA_DIR, default ./.surety; several hosts h1:p1,h2:p2: the read-write one),
SURETY_DATABASE_POOLER=transaction and SURETY_DATABASE_DIRECT_URL behind a transaction-mode pooler,
SURETY_API_KEYS ("tenant:key,..."), LOG_LEVEL, SURETY_WEBHOOK_*.
--url defaults to SURETY_URL or http://127.0.0.1:3000; --api-key to SURETY_API_KEY or the key a
local dev-mode server wrote. See docs/operations.md.`;

function banner(key: string): void {
  const line = '!'.repeat(78);
  process.stderr.write(
    `\n${line}\n!! DEV MODE: SURETY_API_KEYS is not set.\n` +
      `!! A development key was generated for tenant "dev" (kept in SURETY_DATA_DIR):\n!!\n` +
      `!!   Authorization: Bearer ${key}\n!!\n` +
      `!! Webhook URLs may use http:// and reach 127.0.0.1 (SSRF allow-list) in dev mode only.\n` +
      `!! Set SURETY_API_KEYS=tenant:key,... for real use (NODE_ENV=production refuses to start without it).\n` +
      `${line}\n\n`,
  );
}

const out = (line: string) => process.stdout.write(`${line}\n`);

/** Signals closer together than this are one: npm forwards the SIGINT of a Ctrl-C it also got. */
const SAME_SIGNAL_MS = 1000;

/**
 * Shuts down on SIGTERM or SIGINT: once `starting` has resolved, `cleanup` with what it gave, then
 * the telemetry flush, then exit 0 (1 if the cleanup failed; a failed start-up is main()'s to
 * report). Called before start-up begins: the server listens before its delivery worker has started,
 * and a SIGTERM in between must drain the requests already in flight, not meet Node's default action
 * (which ends the process at once). A signal during start-up waits for it, then shuts down the same
 * way. A further signal a second or more after the first exits 1 at once; one sooner is the same
 * signal again (a Ctrl-C reaches `npm start`'s process group, and npm forwards it too).
 */
function shutdownOnSignal<T>(starting: Promise<T>, cleanup: (started: T) => Promise<void>): void {
  let first: number | undefined;
  const stop = () => {
    if (first !== undefined) {
      if (Date.now() - first >= SAME_SIGNAL_MS) process.exit(1);
      return;
    }
    first = Date.now();
    starting.then(
      (started) =>
        cleanup(started)
          // The spans of the drain are flushed too (telemetry.ts; a no-op when tracing is off).
          .then(shutdownTelemetry)
          .then(
            () => process.exit(0),
            (error: unknown) => {
              process.stderr.write(`surety: ${(error as Error).message}\n`);
              process.exit(1);
            },
          ),
      () => {}, // start-up failed: main() reports it and exits 1
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  // lint and probe are the packages' own commands, with their own --help.
  if (command === 'lint') return runLintCli(rest);
  if (command === 'probe') return runProbeCli(rest);
  if (rest.includes('--help') || rest.includes('-h')) {
    out(USAGE);
    return 0;
  }
  switch (command) {
    case 'contracts':
      return runContractsCli(rest, { registry: serviceRegistry() });

    case 'psp':
      return runPsp(rest);

    case 'trigger': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { url: { type: 'string' }, 'api-key': { type: 'string' }, data: { type: 'string' } },
      });
      if (positionals.length !== 1)
        throw new CliError('trigger takes one event type, e.g. surety trigger order.shipped');
      let data: unknown;
      if (values.data !== undefined) {
        try {
          data = JSON.parse(values.data);
        } catch {
          throw new CliError('--data is not valid JSON');
        }
      }
      await trigger(clientOptions(values), serviceRegistry(), positionals[0]!, data, out);
      return 0;
    }

    case 'listen': {
      const { values } = parseArgs({
        args: rest,
        options: {
          url: { type: 'string' },
          'api-key': { type: 'string' },
          'forward-to': { type: 'string' },
          events: { type: 'string', default: '*' },
          port: { type: 'string', default: '0' },
          host: { type: 'string', default: '127.0.0.1' },
        },
      });
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--port must be 0-65535');
      if (values['forward-to'] !== undefined) {
        try {
          new URL(values['forward-to']);
        } catch {
          throw new CliError(`--forward-to is not a URL: ${values['forward-to']}`);
        }
      }
      const listening = listen(
        clientOptions(values),
        {
          forwardTo: values['forward-to'],
          events: values.events
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean),
          port,
          host: values.host,
        },
        out,
      );
      // The temporary endpoint is removed on a signal even while it is being registered.
      shutdownOnSignal(listening, (listener) => listener.close());
      await listening;
      return -1;
    }

    case 'serve':
    case 'worker':
    case 'migrate':
      if (rest.length > 0)
        throw new CliError(`${command} takes no arguments (settings come from the environment)`);
      return service(command);

    default:
      throw new CliError(`unknown command ${JSON.stringify(command)}`);
  }
}

async function service(command: 'serve' | 'worker' | 'migrate'): Promise<number> {
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      if (config.devMode && config.devKey) banner(config.devKey);
      const starting = startServer(config);
      shutdownOnSignal(starting, async (running) => {
        running.app.log.info({}, 'draining in-flight requests, then exiting');
        await running.stop();
      });
      await starting;
      return -1;
    }
    case 'worker': {
      if (!config.databaseUrl) {
        throw new CliError(
          'the embedded database belongs to one process; set DATABASE_URL to run workers apart, ' +
            'or use `surety serve`, which runs a worker in-process',
        );
      }
      const starting = startDeliveryWorker(config);
      shutdownOnSignal(starting, async ({ log, stop, sql }) => {
        log.info({}, 'finishing attempts in flight, then exiting');
        await stop();
        await sql.close();
      });
      await starting;
      return -1;
    }
    case 'migrate': {
      const sql = await openServiceSql(config);
      const { applied } = await migrateService(sql, config).finally(() => sql.close());
      out(applied.length ? `applied: ${applied.join(', ')}` : 'up to date');
      return 0;
    }
  }
}

/** `surety worker`'s start-up: the database, migrations, then the worker and its maintenance. */
async function startDeliveryWorker(config: Config) {
  const sql = await openServiceSql(config, 'surety-worker');
  await migrateService(sql, config);
  const log = pino({ level: config.logLevel, mixin: traceFields });
  const webhooks = new Webhooks({
    sql,
    schema: config.schema,
    allowHttp: config.webhookAllowHttp,
    allowList: config.webhookAllowList,
    validate: eventValidator(serviceRegistry()),
  });
  if (config.devMode) {
    log.warn({}, 'DEV MODE: SURETY_API_KEYS is not set; webhook URLs may use http:// and reach 127.0.0.1');
  }
  const { worker, stop } = startWorker(webhooks, config, log);
  await worker.start();
  log.info({ worker: worker.id }, 'delivery worker started');
  return { sql, log, stop };
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (
      error instanceof ConfigError ||
      error instanceof CliError ||
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    ) {
      process.stderr.write(`surety: ${(error as Error).message}\n\nRun "surety --help" for usage.\n`);
      process.exit(2);
    }
    process.stderr.write(
      `surety: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
