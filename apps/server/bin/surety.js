#!/usr/bin/env node
// The `surety` command. A committed file, so npm can link it at install time, before `prepare`
// has built dist/. entry.js starts tracing (when configured) before it loads the CLI.
import '../dist/entry.js';
