// Proves the pending changesets apply: `changeset version` on a throwaway clone (with this working
// tree's changesets and package.json files copied in) bumps each named package, writes its
// CHANGELOG.md entry, and moves every internal dependency range to the new versions.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

function workspaceManifests(dir) {
  return ['packages', 'apps']
    .filter((top) => existsSync(join(dir, top)))
    .flatMap((top) => readdirSync(join(dir, top)).map((name) => join(top, name, 'package.json')))
    .filter((file) => existsSync(join(dir, file)));
}

/**
 * @param {{ root: string, work: string, report: (name: string, ok: boolean, detail?: string) => void }} o
 */
export async function checkChangesets({ root, work, report }) {
  const semver = createRequire(join(root, 'package.json'))('semver');
  const pending = readdirSync(join(root, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  if (pending.length === 0) {
    report('changesets: none pending (nothing to version)', true);
    return;
  }
  const clone = join(work, 'changesets');
  await run('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
  for (const file of [
    ...pending.map((f) => join('.changeset', f)),
    '.changeset/config.json',
    ...workspaceManifests(root),
  ]) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(root, file), join(clone, file));
  }
  const read = (file) => JSON.parse(readFileSync(join(clone, file), 'utf8'));
  const before = new Map(workspaceManifests(clone).map((f) => [read(f).name, read(f).version]));
  try {
    await run(process.execPath, [join(root, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'], {
      cwd: clone,
      env: { ...process.env, CI: 'true' },
    });
  } catch (error) {
    report(
      'changesets: `changeset version` runs',
      false,
      `${error.stdout ?? ''}${error.stderr ?? ''}`.trim(),
    );
    return;
  }
  const problems = [];
  const bumped = [];
  const versions = new Map(workspaceManifests(clone).map((f) => [read(f).name, read(f).version]));
  for (const file of workspaceManifests(clone)) {
    const pkg = read(file);
    if (pkg.version !== before.get(pkg.name)) {
      if (!pkg.private) bumped.push(`${pkg.name} ${before.get(pkg.name)} → ${pkg.version}`);
      const log = join(clone, file.replace(/package\.json$/, 'CHANGELOG.md'));
      if (!existsSync(log) || !readFileSync(log, 'utf8').includes(`## ${pkg.version}\n`)) {
        problems.push(`${pkg.name}: no "## ${pkg.version}" in its CHANGELOG.md`);
      }
    }
    for (const field of ['dependencies', 'peerDependencies', 'devDependencies']) {
      for (const [name, range] of Object.entries(pkg[field] ?? {})) {
        if (versions.has(name) && !semver.satisfies(versions.get(name), range)) {
          problems.push(`${pkg.name}: ${field}.${name} ${range} does not include ${versions.get(name)}`);
        }
      }
    }
  }
  if (bumped.length === 0) problems.push('no package was bumped');
  report(
    `changesets: \`changeset version\` applies ${pending.length} changeset(s)`,
    problems.length === 0,
    [...bumped, ...problems].join('\n'),
  );
}
