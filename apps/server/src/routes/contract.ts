import { type EventRegistry, serviceContract, toJson, toYaml } from '@surety/events';
import type { FastifyPluginAsync } from 'fastify';

export interface ContractRoutesOptions {
  /** The registry whose types and payload schemas the contract describes. */
  events: EventRegistry;
}

/**
 * The event contract (`/asyncapi.json`, `/asyncapi.yaml`), built once from the same registry that
 * validates every published payload. Public, hidden from the API document.
 */
export const contractRoutes: FastifyPluginAsync<ContractRoutesOptions> = async (app, options) => {
  const contract = serviceContract(options.events);
  const contractJson = toJson(contract);
  const contractYaml = toYaml(contract);
  app.get('/asyncapi.json', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(contractJson),
  );
  app.get('/asyncapi.yaml', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/yaml; charset=utf-8').send(contractYaml),
  );
};
