/**
 * `lint()`: the ruleset run by Spectral on one document (a file or an http(s) URL), with the `$ref`
 * policy of resolver.ts. Findings carry the rule, severity, message, JSON path, line and docs link.
 */
import { readFile } from 'node:fs/promises';
import { Document, Spectral } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { structureProblem } from './bounds.js';
import { createResolver, type RefPolicy } from './resolver.js';
import { DOCS, ruleset } from './ruleset.js';

export type { RefPolicy } from './resolver.js';

export type Severity = 'error' | 'warn' | 'info' | 'hint';
const SEVERITIES: Severity[] = ['error', 'warn', 'info', 'hint'];

export interface Finding {
  /** The rule's name (`surety-…`), or Spectral's own code (`invalid-ref`, `unrecognized-format`, …). */
  rule: string;
  severity: Severity;
  message: string;
  /** The JSON path of the node the finding is about. */
  path: (string | number)[];
  /** 1-based. */
  line: number;
  column: number;
  /** Where the rule is explained (for the ruleset's rules). */
  documentationUrl?: string;
}

export interface LintReport {
  source: string;
  findings: Finding[];
  errors: number;
  warnings: number;
}

export interface LintOptions {
  /** Which `$ref`s to follow. @default `'files'` for a file, `'none'` for a URL */
  refs?: RefPolicy;
  /** The largest document read, in bytes. @default 64 MiB */
  maxBytes?: number;
  /** How long fetching a URL may take. @default 30000 */
  timeoutMs?: number;
}

/** A problem reading the document (not a finding): an unreadable file, a refused URL, too large. */
export class LintInputError extends Error {
  readonly code = 'SURETY_LINT_INPUT';
}

const isUrl = (target: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(target);

/** Reads a file, or GETs an http(s) URL (any other scheme is refused), up to `maxBytes`. */
export async function readTarget(target: string, options: LintOptions = {}): Promise<string> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  if (!isUrl(target)) {
    const text = await readFile(target, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new LintInputError(`cannot read ${target}: ${e.code ?? e.message}`);
    });
    if (Buffer.byteLength(text) > maxBytes) throw new LintInputError(`${target} is over ${maxBytes} bytes`);
    return text;
  }
  const url = new URL(target);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new LintInputError(`refused: ${url.protocol} URLs (only http and https are read)`);
  // Redirects are not followed (as probe's): a URL could send the linter anywhere, loopback included.
  const response = await fetch(url, {
    redirect: 'manual',
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  }).catch((e: Error) => {
    throw new LintInputError(`cannot fetch ${target}: ${e.message}`);
  });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const to = response.headers.get('location') ?? '(no Location)';
    throw new LintInputError(
      `not followed: ${target} answered a redirect (HTTP ${response.status}) to ${to}; lint that URL if you trust it`,
    );
  }
  if (!response.ok) throw new LintInputError(`cannot fetch ${target}: HTTP ${response.status}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let next = await reader?.read(); next && !next.done; next = await reader!.read()) {
    const chunk = next.value;
    size += chunk.byteLength;
    if (size > maxBytes) {
      await reader!.cancel();
      throw new LintInputError(`${target} is over ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Lints a document's text; `source` (a path or URL) names it and anchors its relative `$ref`s. */
export async function lintText(
  text: string,
  options: LintOptions & { source?: string } = {},
): Promise<LintReport> {
  const source = options.source ?? '<document>';
  const remote = isUrl(source);
  const policy = options.refs ?? (remote ? 'none' : 'files');
  const refused = structureProblem(text);
  if (refused) throw new LintInputError(`refused: ${source} ${refused}`);
  const spectral = new Spectral({ resolver: createResolver(policy, options.source) });
  spectral.setRuleset(ruleset);
  const document = /^\s*[{[]/.test(text)
    ? new Document(text, parsers.Json, options.source)
    : new Document(text, parsers.Yaml, options.source);
  const results = await spectral.run(document).catch((error: unknown) => {
    // A structure the bounds let through but a parser or rule still recursed too deep on.
    if (error instanceof RangeError) throw new LintInputError(`refused: ${source}: ${error.message}`);
    throw error;
  });
  const findings = results
    .map(
      (r): Finding => ({
        rule: String(r.code),
        severity: SEVERITIES[r.severity] ?? 'error',
        message: r.message,
        path: [...r.path],
        line: r.range.start.line + 1,
        column: r.range.start.character + 1,
        ...(String(r.code).startsWith('surety-') ? { documentationUrl: `${DOCS}#${r.code}` } : {}),
      }),
    )
    .sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule));
  return {
    source,
    findings,
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warn').length,
  };
}

/** Lints a file or an http(s) URL. */
export async function lint(target: string, options: LintOptions = {}): Promise<LintReport> {
  return lintText(await readTarget(target, options), { ...options, source: target });
}
