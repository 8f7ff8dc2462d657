/**
 * Which payment provider the service talks to: the client it was given, else one for
 * SURETY_PSP_URL, else the simulated provider started in-process on loopback (with a warning: no
 * real money moves). What the app started, it closes with itself.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { createPspClient, type PspClient } from './client.js';
import { startSimulator } from './serve.js';

/** The provider's client, and whether it is the in-process simulator. */
export async function paymentProvider(
  app: FastifyInstance,
  given: PspClient | undefined,
  config: Partial<Pick<Config, 'pspUrl' | 'pspDeadlineMs'>>,
): Promise<{ psp: PspClient; simulated: boolean }> {
  if (given !== undefined) return { psp: given, simulated: false };
  let url = config.pspUrl;
  const simulated = url === undefined;
  if (url === undefined) {
    const simulator = await startSimulator();
    app.addHook('onClose', () => simulator.close());
    url = simulator.url;
    app.log.warn({ psp: url }, 'SIMULATED payment provider (SURETY_PSP_URL unset): no real money moves');
  }
  const client = createPspClient({
    url,
    ...(config.pspDeadlineMs ? { deadlineMs: config.pspDeadlineMs } : {}),
  });
  app.addHook('onClose', () => client.close());
  return { psp: client, simulated };
}
