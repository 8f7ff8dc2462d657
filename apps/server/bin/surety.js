#!/usr/bin/env node
// The `surety` command. A committed file, so npm can link it at install time, before `prepare`
// has built dist/.
import '../dist/cli.js';
