// The import-circle check of `npm test` (`npm run circles`; docs/architecture.md), over the packages,
// the service and the benches, tests included:
// no module may reach itself again through its imports, type-only imports included (a circle of
// types is still two modules that cannot be read, or moved, one without the other).

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: break it (a module both sides import, or the type moved to its owner).',
      from: {},
      to: { circular: true },
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
