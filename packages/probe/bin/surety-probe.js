#!/usr/bin/env node
// A committed entry point, so npm can link the command at install time, before `prepare` has
// compiled dist/ (a bin pointing straight into dist/ is not linked on a fresh clone).
await import('../dist/bin.js');
