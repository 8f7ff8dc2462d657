// The code blocks of a docs page are files that run (docs/examples/…): each fenced block follows a
// marker that says which file it shows verbatim, `<!-- example: docs/examples/orm/kysely.ts -->`,
// or, for a block that is deliberately not a program (a one-line option, a method out of its class,
// the mistake a warning shows), `<!-- fragment: why -->`. A block inside a blockquote has its
// marker there too (`> <!-- … -->`). Blocks without a language (a diagram, a transcript) and the
// languages in PROSE are not code. The tests of the pages (packages/db/test/orm/examples.test.ts,
// packages/idempotency/test/docs-examples.test.ts) call this and run the files.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Fenced languages that are not code to run. */
const PROSE = new Set(['', 'text', 'console', 'sh', 'bash', 'http', 'json', 'sql']);
const MARKER = /^<!-- (example|fragment): (.+?) -->$/;

/**
 * @param {string} root the repository
 * @param {string} page a docs page, relative to root (docs/orm.md)
 * @param {{ write?: boolean }} [options] write: put each file's text into its block instead of comparing
 * @returns {{ problems: string[], examples: string[], fragments: number }} examples: the files shown
 */
export function checkDocBlocks(root, page, options = {}) {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  let changed = false;
  const problems = [];
  const examples = [];
  let fragments = 0;
  for (let i = 0; i < lines.length; i++) {
    const quote = /^(> ?)?/.exec(lines[i])[0];
    const open = /^```(\S*)$/.exec(lines[i].slice(quote.length));
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && lines[end].slice(quote.length) !== '```') end++;
    const body = lines.slice(i + 1, end).map((l) => l.slice(quote.length));
    const at = i + 1;
    const before = (lines[i - 1] ?? '').slice(quote.length);
    i = end;
    if (PROSE.has(open[1])) continue;
    const marker = MARKER.exec(before);
    if (!marker) {
      problems.push(
        `${page}:${at}: a \`${open[1]}\` block with no <!-- example: file --> or <!-- fragment: why --> before it`,
      );
      continue;
    }
    if (marker[1] === 'fragment') {
      fragments++;
      continue;
    }
    const file = marker[2];
    examples.push(file);
    let text;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      problems.push(`${page}:${at}: ${file} does not exist`);
      continue;
    }
    if (`${body.join('\n')}\n` === text) continue;
    if (!options.write) {
      problems.push(
        `${page}:${at}: the block differs from ${file} (node scripts/docs-examples.mjs --write ${page})`,
      );
      continue;
    }
    const shown = text
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => (quote && l ? `${quote}${l}` : quote ? quote.trimEnd() : l));
    lines.splice(at, end - at, ...shown);
    i = at + shown.length;
    changed = true;
  }
  if (changed) writeFileSync(join(root, page), lines.join('\n'));
  return { problems, examples, fragments };
}

// node scripts/docs-examples.mjs [--write] <page…>: checks (or, with --write, updates) each page.
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const root = new URL('..', import.meta.url).pathname;
  let failed = 0;
  for (const page of args.filter((a) => !a.startsWith('--'))) {
    const { problems, examples, fragments } = checkDocBlocks(root, page, { write: args.includes('--write') });
    console.log(`${page}: ${examples.length} examples, ${fragments} fragments`);
    for (const p of problems) console.log(`  ${p}`);
    failed += problems.length;
  }
  process.exit(failed === 0 ? 0 : 1);
}
