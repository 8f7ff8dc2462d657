import { parseArgs } from 'node:util';
import { CliError } from '../cli-client.js';
import { startSimulator } from './serve.js';

const rate = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new CliError(`--${name} is a probability between 0 and 1`);
  return n;
};

/** `surety psp`: the simulated payment provider alone, until SIGINT or SIGTERM. */
export async function runPsp(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'fail-after-charge': { type: 'string' },
      drop: { type: 'string' },
      slow: { type: 'string' },
      'slow-ms': { type: 'string' },
    },
  });
  const port = Number(values.port ?? 4242);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--port is 0 to 65535');
  const slowMs = Number(values['slow-ms'] ?? 2000);
  if (!Number.isInteger(slowMs) || slowMs < 0 || slowMs > 600_000)
    throw new CliError('--slow-ms is 0 to 600000');
  const options = {
    port,
    host: values.host ?? '127.0.0.1',
    slowMs,
    ...optional('failAfterChargeRate', rate('fail-after-charge', values['fail-after-charge'])),
    ...optional('dropRate', rate('drop', values.drop)),
    ...optional('slowRate', rate('slow', values.slow)),
  };
  const running = await startSimulator(options);
  process.stdout.write(
    `SIMULATED payment provider (no real money moves) listening at ${running.url}\n` +
      `  POST ${running.url}/v1/charges  {amount, currency, paymentMethod, reference}  Idempotency-Key required\n` +
      '  test cards: 4242424242424242 succeeds, 4000000000000002 declined, 4000000000009995 insufficient funds,\n' +
      '              4000000000000500 charges then answers 500, 4000000000000077 slow, 4000000000000119 never answers\n' +
      `  the service uses it with SURETY_PSP_URL=${running.url}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  return 0;
}

function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}
