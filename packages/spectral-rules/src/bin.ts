#!/usr/bin/env node
// The `surety-lint` command; see runLintCli.
import { runLintCli } from './cli.js';

process.exitCode = await runLintCli(process.argv.slice(2));
