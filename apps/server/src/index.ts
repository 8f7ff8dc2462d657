export type { AppOptions } from './app.js';
export { buildApp } from './app.js';
export type { Config } from './config.js';
export { loadConfig, parseApiKeys } from './config.js';
export { HttpProblem } from './problem.js';
export { allMigrations, runMigrations, startServer } from './server.js';
