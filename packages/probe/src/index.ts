/**
 * @surety/probe: a black-box conformance tester for a running HTTP API. `probe()` sends a bounded
 * number of requests to one operation and reports, per rule of the Idempotency-Key draft and of
 * RFC 9110's preconditions, pass / fail / inconclusive / not applicable, with its MUST or SHOULD.
 */
export { type CliIo, PROBE_USAGE, parseProbeArgs, runProbeCli } from './cli.js';
export { type ClientOptions, type Exchange, ProbeError } from './client.js';
export { formatTable } from './format.js';
export { type ProbeOptions, type ProbeReport, probe, type Suite } from './probe.js';
export { type Level, RULES, type RuleId, type RuleInfo, type RuleResult, type Verdict } from './rules.js';
