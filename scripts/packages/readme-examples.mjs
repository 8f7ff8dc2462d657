// Each package README shows its example verbatim: the fenced block after the marker
// `<!-- example: examples/readme.ts -->` must equal that file, which CI compiles and runs from the
// installed tarballs. `write` puts the file's text into the README instead of comparing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MARKER = /<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```\n/;

/**
 * @param {string} packageDir
 * @param {{ write?: boolean }} [options]
 * @returns {{ problems: string[], examples: string[] }} examples: paths relative to the package
 */
export function checkReadmeExample(packageDir, options = {}) {
  const readmePath = join(packageDir, 'README.md');
  let readme;
  try {
    readme = readFileSync(readmePath, 'utf8');
  } catch {
    return { problems: ['README.md is missing'], examples: [] };
  }
  const match = MARKER.exec(readme);
  if (!match) return { problems: ['README.md has no `<!-- example: examples/… -->` block'], examples: [] };
  const [block, file, shown] = match;
  const text = readFileSync(join(packageDir, file), 'utf8');
  if (shown === text) return { problems: [], examples: [file] };
  if (options.write) {
    writeFileSync(readmePath, readme.replace(block, `<!-- example: ${file} -->\n\`\`\`ts\n${text}\`\`\`\n`));
    return { problems: [], examples: [file] };
  }
  return {
    problems: [
      `README.md's example differs from ${file} (run: node scripts/check-packages.mjs --write-readmes)`,
    ],
    examples: [file],
  };
}
