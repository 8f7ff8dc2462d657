import { createSimulator, type Simulator, type SimulatorOptions } from './simulator.js';

/** A running simulated provider on loopback. */
export interface RunningSimulator {
  url: string;
  simulator: Simulator;
  close(): Promise<void>;
}

/** Starts the simulated provider on 127.0.0.1 (port 0: any free port, unless given). */
export async function startSimulator(
  options: SimulatorOptions & { port?: number; host?: string } = {},
): Promise<RunningSimulator> {
  const simulator = createSimulator(options);
  const url = await simulator.app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  return { url, simulator, close: () => simulator.app.close() };
}
