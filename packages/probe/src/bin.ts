#!/usr/bin/env node
// The `surety-probe` command; see runProbeCli.
import { runProbeCli } from './cli.js';

process.exitCode = await runProbeCli(process.argv.slice(2));
