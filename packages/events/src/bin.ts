#!/usr/bin/env node
// The `surety-contracts` command; see runContractsCli.
import { runContractsCli } from './cli.js';

process.exitCode = await runContractsCli(process.argv.slice(2));
