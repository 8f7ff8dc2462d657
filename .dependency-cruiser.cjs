// The import-circle check of `npm test` (`npm run circles`; docs/architecture.md), over the packages,
// the service and the benches, tests included:
// no module may reach itself again through its imports, type-only imports included (a circle of
// types is still two modules that cannot be read, or moved, one without the other).

// The one known circle, listed so that no other module can join it unnoticed: @surety/webhooks'
// operation modules take the Webhooks façade, reach its state through internals.ts and call back
// into it (8 modules; poll/read.ts joined it with pull delivery, in the same shape). The engine-context refactor of issue 34 (`fn(ctx, q, input)`, as
// @surety/idempotency's EngineContext) removes it; then delete these lists and the second rule.
const KNOWN = [
  'applications',
  'endpoint-writes',
  'internals',
  'partitions',
  'poll/read',
  'queries',
  'requeue',
  'webhooks',
];
const KNOWN_CIRCLE = `^packages/webhooks/src/(${KNOWN.join('|')})\\.ts$`;
/** Any module but those: a circle that passes through one of these is not the known one. */
const OUTSIDE_KNOWN_CIRCLE = `^(?!packages/webhooks/src/(${KNOWN.join('|')})\\.ts$)`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: break it (a module both sides import, or the type moved to its owner).',
      from: { pathNot: KNOWN_CIRCLE },
      to: { circular: true },
    },
    {
      name: 'no-circular-beyond-known',
      severity: 'error',
      comment: 'The known webhooks circle (issue 34) may not grow: a circle through any other module fails.',
      from: { path: KNOWN_CIRCLE },
      to: { circular: true, via: { path: OUTSIDE_KNOWN_CIRCLE } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)dist/', 'node_modules'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.test.json' },
    enhancedResolveOptions: {
      conditionNames: ['@surety/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.d.ts'],
    },
  },
};
