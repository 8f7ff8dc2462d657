#!/usr/bin/env node
// The public API of every package, as committed snapshots (api/<package>.api.d.ts), so that a change
// to what users import cannot land unnoticed: `npm test` runs `--check`, which fails when the built
// declarations differ from the snapshot; `npm run api:update` rewrites the snapshots after a change
// that is meant (review the diff: it is the API change).
//
// What a snapshot holds: for each entry point in the package's `exports` (its `types` file), the
// names that entry point exports, sorted, each with its declaration as the TypeScript printer prints
// it without comments (a doc-comment edit is not an API change). Then, once per package, the types
// that those declarations name but no entry point exports ("reachable, not exported"): their shape is
// part of the API even though users cannot name them. Nothing else: which file a declaration lives in,
// internal helpers and the order of files are not in the report, so an internal refactor leaves it as
// it is. This is the rollup API Extractor makes, done with the TypeScript checker in one pass per
// package (API Extractor wants one run per entry point; see docs/decisions.md).
//
// Usage: node scripts/api-report.mjs --check | --update   (reads dist/: run `tsc -b` first)
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(new URL('..', import.meta.url).pathname);
const mode = process.argv[2];
if (mode !== '--check' && mode !== '--update') {
  console.error('usage: node scripts/api-report.mjs --check | --update');
  process.exit(2);
}
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** The `types` target of every export entry, with the subpath it serves. */
function entries(pkg) {
  const out = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (typeof types === 'string' && types.endsWith('.d.ts')) out.push({ subpath, types });
  }
  return out;
}

/** The symbol a name stands for, through `export { x } from` and `import` aliases. */
function target(checker, symbol) {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** The node to print for a declaration: a variable's whole statement, else the declaration itself. */
function printable(decl) {
  if (ts.isVariableDeclaration(decl) && ts.isVariableStatement(decl.parent.parent)) return decl.parent.parent;
  return decl;
}

function print(node) {
  return printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile()).trimEnd();
}

/** Symbols of the package's own (non-exported) types that `node` names. */
function named(checker, node, inside, found) {
  const visit = (n) => {
    let symbol;
    if (ts.isTypeReferenceNode(n)) symbol = checker.getSymbolAtLocation(n.typeName);
    else if (ts.isExpressionWithTypeArguments(n)) symbol = checker.getSymbolAtLocation(n.expression);
    else if (ts.isTypeQueryNode(n)) symbol = checker.getSymbolAtLocation(n.exprName);
    else if (ts.isImportTypeNode(n)) {
      const type = checker.getTypeFromTypeNode(n);
      symbol = type.aliasSymbol ?? type.getSymbol();
    }
    if (symbol) {
      const real = target(checker, symbol);
      if (!(real.flags & ts.SymbolFlags.TypeParameter) && real.declarations?.some(inside)) found.add(real);
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
}

function report(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const list = entries(pkg);
  if (list.length === 0) return undefined;
  const files = list.map(({ types }) => join(dir, types));
  for (const [i, file] of files.entries()) {
    if (!existsSync(file))
      throw new Error(`${pkg.name}: ${list[i].types} is missing: run \`npx tsc -b\` first`);
  }
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const own = join(dir, 'dist') + sep;
  const inside = (decl) => decl.getSourceFile().fileName.startsWith(own);

  const lines = [
    `// The public API of ${pkg.name}: what each entry point exports (scripts/api-report.mjs; do not edit by hand).`,
  ];
  const shown = new Map(); // symbol → the subpath that printed it
  const reached = new Set();
  for (const [i, { subpath }] of list.entries()) {
    const source = program.getSourceFile(files[i]);
    const module = source && checker.getSymbolAtLocation(source);
    lines.push('', `// ===== ${label(pkg.name, subpath)}`);
    if (!module) continue; // an entry point that exports nothing
    const exported = checker.getExportsOfModule(module).sort(byName);
    for (const symbol of exported) {
      const real = target(checker, symbol);
      const decls = (real.declarations ?? []).filter(inside);
      if (decls.length === 0) {
        // Re-exported from another package: its own report holds the shape.
        const from = real.declarations?.[0]?.getSourceFile().fileName ?? '?';
        const origin = packageOf(from);
        lines.push(
          `export { ${real.name === symbol.name ? symbol.name : `${real.name} as ${symbol.name}`} } from "${origin}";`,
        );
        continue;
      }
      const first = shown.get(real);
      if (first !== undefined) {
        lines.push(
          `export { ${real.name === symbol.name ? symbol.name : `${real.name} as ${symbol.name}`} }; // as in ${first}`,
        );
        continue;
      }
      shown.set(real, label(pkg.name, subpath));
      if (real.name !== symbol.name) lines.push(`// exported as ${symbol.name}`);
      for (const decl of decls) {
        lines.push(print(printable(decl)));
        named(checker, decl, inside, reached);
      }
    }
  }
  // The closure of non-exported types that exported declarations name.
  const extra = [];
  const queue = [...reached];
  const queued = new Set(queue);
  while (queue.length > 0) {
    const symbol = queue.shift();
    if (shown.has(symbol)) continue;
    extra.push(symbol);
    const more = new Set();
    for (const decl of symbol.declarations.filter(inside)) named(checker, decl, inside, more);
    for (const s of more) {
      if (!queued.has(s)) {
        queued.add(s);
        queue.push(s);
      }
    }
  }
  if (extra.length > 0) {
    lines.push(
      '',
      '// ----- reachable, not exported: named by the declarations above, so their shape is part of the API',
    );
    extra.sort(byName);
    for (const symbol of extra)
      for (const decl of symbol.declarations.filter(inside)) lines.push(print(printable(decl)));
  }
  return { name: pkg.name, text: `${lines.join('\n')}\n` };
}

/** By name, `default` last (so that a default export of a named one reads as `export { x as default }`). */
function byName(a, b) {
  const x = a.name === 'default' ? '\uffff' : a.name;
  const y = b.name === 'default' ? '\uffff' : b.name;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `@surety/x` for ".", `@surety/x/sub` for "./sub". */
function label(name, subpath) {
  return subpath === '.' ? name : `${name}${subpath.slice(1)}`;
}

/** The package a declaration file outside this one belongs to (workspace links resolve to packages/x). */
function packageOf(file) {
  const workspace = relative(join(root, 'packages'), file).split(sep);
  if (workspace.length > 1 && workspace[0] !== '..') {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', workspace[0], 'package.json'), 'utf8'));
    const rel = `./${workspace.slice(1).join('/')}`;
    const entry = entries(pkg).find(({ types }) => types === rel);
    return entry === undefined ? pkg.name : label(pkg.name, entry.subpath);
  }
  return file.match(/node_modules\/(@[^/]+\/[^/]+|[^/]+)\//)?.[1] ?? relative(root, file);
}

const out = join(root, 'api');
mkdirSync(out, { recursive: true });
const wanted = new Map();
for (const name of readdirSync(join(root, 'packages')).sort()) {
  const dir = join(root, 'packages', name);
  if (!existsSync(join(dir, 'package.json'))) continue;
  const r = report(dir);
  if (r) wanted.set(`${name}.api.d.ts`, r.text);
}

let stale = 0;
for (const [file, text] of wanted) {
  const path = join(out, file);
  const had = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (had === text) continue;
  if (mode === '--update') {
    writeFileSync(path, text);
    console.log(`api/${file}: written`);
  } else {
    stale++;
    console.error(`api/${file}: ${had === undefined ? 'missing' : 'differs from the built declarations'}`);
    if (had !== undefined) console.error(difference(had, text));
  }
}
for (const file of readdirSync(out)) {
  if (file.endsWith('.api.d.ts') && !wanted.has(file)) {
    stale++;
    console.error(`api/${file}: no such package any more`);
  }
}
if (stale > 0) {
  console.error(
    `\n${stale} public API snapshot(s) out of date. If the change is meant, run \`npm run api:update\` and commit api/ (the diff is the API change).`,
  );
  process.exit(1);
}
if (mode === '--check') console.log(`public API: ${wanted.size} packages match their snapshots in api/`);

/** The lines only one side has (at most 40), so that the failing check names the change. */
function difference(had, now) {
  const a = new Set(had.split('\n'));
  const b = new Set(now.split('\n'));
  const gone = [...a].filter((l) => !b.has(l)).map((l) => `  - ${l}`);
  const added = [...b].filter((l) => !a.has(l)).map((l) => `  + ${l}`);
  const all = [...gone, ...added];
  return all.slice(0, 40).join('\n') + (all.length > 40 ? `\n  … ${all.length - 40} more` : '');
}
