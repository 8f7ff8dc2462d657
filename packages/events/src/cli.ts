import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type AsyncApiOptions, serviceContract, toJson, toYaml } from './asyncapi.js';
import { renderCatalogue, replaceCatalogue } from './catalogue.js';
import { type ContractDiff, diffContracts, formatReport, isAllowedChange } from './diff/contracts.js';
import { isEventError } from './errors.js';
import { jsonEqual } from './json-schema.js';
import type { EventRegistry } from './registry.js';

/**
 * Options of `runContractsCli()`; all but `registry` default to the process.
 * @example
 * await runContractsCli(['check'], { registry, stdout: (t) => log.info(t) });
 */
export interface ContractsCliOptions {
  /** Where output goes. @default process.stdout */
  stdout?: (text: string) => void;
  /** Where errors go. @default process.stderr */
  stderr?: (text: string) => void;
  /** Relative paths resolve from here. @default process.cwd() */
  cwd?: string;
  /**
   * The registry `generate` and `check` build the contract from: your service's catalogue. Without
   * one only `diff` runs (the standalone `surety-contracts` command); the others exit 2.
   */
  registry?: EventRegistry;
  /** Options of the generated document. @default {} (the service contract) */
  asyncapi?: AsyncApiOptions;
}

const USAGE = `usage: surety-contracts <command>

  diff <old> <new> [--json] [--allow-major]
      Compare two AsyncAPI 3 documents (JSON or YAML). Exit 1 on a breaking change;
      with --allow-major, a breaking change passes when info.version's major was raised.
  check [<committed>]            (default contracts/asyncapi.json)
      Build the contract from the service's registry (run through the service's own command,
      e.g. \`surety contracts check\`) and compare it with the committed one. Exit 1 when it
      breaks the committed one without a major version raise, or when the committed one is stale.
  generate [--out <file>] [--yaml <file>] [--docs <file>] [--force]
      Write the contract (default contracts/asyncapi.json), refusing a breaking change without a
      major version raise unless --force; --docs rewrites the generated catalogue in that Markdown file.

exit codes: 0 ok, 1 breaking change or stale contract, 2 usage or input error`;

async function readDocument(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch {
    return parseYaml(text);
  }
}

const exists = async (path: string) =>
  readFile(path).then(
    () => true,
    () => false,
  );

/**
 * The `surety-contracts` command line, as a function: returns the exit code instead of exiting,
 * so the service's CLI can expose it as `surety contracts …`.
 * @example
 * process.exitCode = await runContractsCli(['diff', 'old.json', 'new.json']);
 * // in apps/server: case 'contracts': return runContractsCli(argv.slice(1), { registry });
 */
export async function runContractsCli(
  argv: readonly string[],
  options: ContractsCliOptions = {},
): Promise<number> {
  const out = options.stdout ?? ((t: string) => process.stdout.write(`${t}\n`));
  const err = options.stderr ?? ((t: string) => process.stderr.write(`${t}\n`));
  const cwd = options.cwd ?? process.cwd();
  const flags = new Set(argv.filter((a) => a.startsWith('--') && !a.includes('=')));
  const option = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const valued = new Set(['--out', '--yaml', '--docs']);
  const positional = argv.filter((a, i) => !a.startsWith('--') && !valued.has(argv[i - 1] ?? ''));
  const [command, ...args] = positional;
  const registry = options.registry;
  const generated = (r: EventRegistry) => serviceContract(r, options.asyncapi);
  if ((command === 'check' || command === 'generate') && registry === undefined) {
    err(
      `${command} builds the contract from your service's event registry: run it through your service's ` +
        'own command, which passes the registry (runContractsCli(argv, { registry }); `surety contracts` here)',
    );
    return 2;
  }

  try {
    switch (command) {
      case 'diff': {
        if (args.length !== 2) break;
        const diff = diffContracts(
          await readDocument(resolve(cwd, args[0]!)),
          await readDocument(resolve(cwd, args[1]!)),
        );
        const ok = flags.has('--allow-major') ? isAllowedChange(diff) : !diff.breaking;
        out(flags.has('--json') ? JSON.stringify({ ...diff, ok }, null, 2) : formatReport(diff));
        return ok ? 0 : 1;
      }
      case 'check': {
        const path = resolve(cwd, args[0] ?? 'contracts/asyncapi.json');
        const doc = generated(registry!);
        const diff = diffContracts(await readDocument(path), doc);
        out(formatReport(diff));
        if (!isAllowedChange(diff)) return 1;
        if (!jsonEqual(await readDocument(path), doc)) {
          err(`${path} is stale: run \`npm run contracts:generate\` and commit it`);
          return 1;
        }
        return 0;
      }
      case 'generate': {
        const path = resolve(cwd, option('--out') ?? 'contracts/asyncapi.json');
        const doc = generated(registry!);
        if (await exists(path)) {
          const diff: ContractDiff = diffContracts(await readDocument(path), doc);
          out(formatReport(diff));
          if (!isAllowedChange(diff) && !flags.has('--force')) {
            err(
              'refusing to overwrite the committed contract with a breaking change: raise the major of ' +
                'SERVICE_CONTRACT_VERSION (or pass --force, and say why in the commit)',
            );
            return 1;
          }
        }
        await writeFile(path, toJson(doc));
        out(`wrote ${path}`);
        const yamlPath = option('--yaml');
        if (yamlPath !== undefined) {
          await writeFile(resolve(cwd, yamlPath), toYaml(doc));
          out(`wrote ${resolve(cwd, yamlPath)}`);
        }
        const docsPath = option('--docs');
        if (docsPath !== undefined) {
          const p = resolve(cwd, docsPath);
          const text = (await exists(p)) ? await readFile(p, 'utf8') : '# Events\n';
          await writeFile(p, replaceCatalogue(text, renderCatalogue(registry!)));
          out(`wrote the catalogue in ${p}`);
        }
        return 0;
      }
      case 'help':
      case undefined:
        out(USAGE);
        return command === 'help' ? 0 : 2;
    }
  } catch (e) {
    err(isEventError(e) ? `${e.code}: ${e.message}` : `error: ${(e as Error).message}`);
    return 2;
  }
  err(USAGE);
  return 2;
}
