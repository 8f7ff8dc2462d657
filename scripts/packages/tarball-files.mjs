// Checks one unpacked tarball for what publint and attw do not: every file that an export
// condition, `main`, `types`, `bin`, a `sourceMappingURL` or a source map's `sources` points at is in
// the tarball, relative imports resolve inside it, and the metadata a registry page and an installer
// need is there. Returns a list of problems (empty when all is well).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

function listFiles(dir, base = dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listFiles(path, base, out);
    else out.push(relative(base, path));
  }
  return out;
}

/** Every path string inside an `exports` value (conditions nest; arrays are fallbacks). */
function exportTargets(value, where, out) {
  if (typeof value === 'string') out.push([where, value]);
  else if (Array.isArray(value)) for (const v of value) exportTargets(v, where, out);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) exportTargets(v, `${where} → ${key}`, out);
  }
  return out;
}

/**
 * @param {string} dir the unpacked tarball (npm's `package/` folder)
 * @param {{ directory: string }} expected where the package lives in the repository
 * @returns {string[]} problems
 */
export function checkTarballFiles(dir, expected) {
  const problems = [];
  const files = new Set(listFiles(dir));
  const has = (path) => files.has(relative(dir, resolve(dir, path)));
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

  // --- what package.json points at ---------------------------------------------------------------
  const pointers = [];
  if (pkg.exports) exportTargets(pkg.exports, 'exports', pointers);
  for (const field of ['main', 'types', 'typings', 'module']) {
    if (typeof pkg[field] === 'string') pointers.push([field, pkg[field]]);
  }
  if (typeof pkg.bin === 'string') pointers.push(['bin', pkg.bin]);
  else for (const [name, path] of Object.entries(pkg.bin ?? {})) pointers.push([`bin → ${name}`, path]);
  for (const [where, target] of pointers) {
    if (target.includes('*'))
      problems.push(`${where}: pattern ${target} (this check does not expand patterns)`);
    else if (!has(target)) problems.push(`${where}: ${target} is not in the tarball`);
  }

  // --- source maps and relative imports ----------------------------------------------------------
  for (const file of files) {
    const path = join(dir, file);
    if (/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) {
      const text = readFileSync(path, 'utf8');
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
      if (url && !url.startsWith('data:') && !has(join(dirname(file), url))) {
        problems.push(`${file}: sourceMappingURL ${url} is not in the tarball`);
      }
      if (!file.startsWith('src/')) {
        for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
          if (!has(join(dirname(file), m[1]))) problems.push(`${file}: imports ${m[1]}, not in the tarball`);
        }
        // Files read at run time: `new URL('../sql/', import.meta.url)` (a folder: some file under it).
        for (const m of text.matchAll(/new URL\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*,\s*import\.meta\.url/g)) {
          const target = relative(dir, resolve(dir, dirname(file), m[1]));
          const found = m[1].endsWith('/')
            ? [...files].some((f) => f.startsWith(`${target}/`))
            : files.has(target);
          if (!found) problems.push(`${file}: reads ${m[1]} at run time, not in the tarball`);
        }
      }
    }
    if (file.endsWith('.map')) {
      const map = JSON.parse(readFileSync(path, 'utf8'));
      const root = map.sourceRoot ?? '';
      for (const source of map.sources ?? []) {
        if (/^[a-z]+:/i.test(source)) continue; // a URL: not a file of ours
        if (!has(join(dirname(file), root, source)))
          problems.push(`${file}: source ${source} is not in the tarball`);
      }
    }
    if (/\.test\.(ts|js)$/.test(file)) problems.push(`${file}: a test file is published`);
  }

  // --- metadata ----------------------------------------------------------------------------------
  for (const name of ['LICENSE', 'README.md'])
    if (!files.has(name)) problems.push(`${name} is not in the tarball`);
  if (pkg.license !== 'MIT') problems.push(`license is ${pkg.license}, expected MIT`);
  if (pkg.repository?.directory !== expected.directory) {
    problems.push(`repository.directory is ${pkg.repository?.directory}, expected ${expected.directory}`);
  }
  if (!pkg.repository?.url) problems.push('repository.url is missing');
  for (const field of ['homepage', 'description']) if (!pkg[field]) problems.push(`${field} is missing`);
  if (!pkg.engines?.node) problems.push('engines.node is missing');
  if (!(pkg.keywords?.length > 0)) problems.push('keywords are missing');
  if (pkg.publishConfig?.access !== 'public') problems.push('publishConfig.access is not "public"');
  if (!pkg.scripts?.prepack) problems.push('no prepack build: a clean checkout would pack no dist/');
  if (pkg.type !== 'module') problems.push('type is not "module"');
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(pkg[field] ?? {})) {
      if (name.startsWith('@surety/') && !/^[\^~>]/.test(range)) {
        problems.push(`${field}.${name} is pinned to ${range}: use a range (^${range})`);
      }
    }
  }
  if (existsSync(join(dir, 'node_modules'))) problems.push('node_modules is in the tarball');
  return problems;
}
