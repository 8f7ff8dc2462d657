/**
 * Which `$ref`s a lint follows. A document to lint may be untrusted (a URL a user pasted, a file
 * from a pull request): following its `$ref`s would let it make this process fetch any URL (SSRF)
 * or read any local file into the findings. So only refs inside the document are followed unless
 * asked: `files` adds local files under the document's own folder, `remote` adds http(s) too.
 */
import { readFile, realpath } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { createHttpAndFileResolver, Resolver } from '@stoplight/spectral-ref-resolver';

/**
 * - `none`: only `#/…` refs inside the document (the default for a document read from a URL);
 * - `files`: also files under the document's folder (the default for a file);
 * - `remote`: also http(s) URLs and any file: the document is trusted.
 */
export type RefPolicy = 'none' | 'files' | 'remote';

interface Uri {
  href(): string;
}

const refuse = (what: string, policy: RefPolicy) => ({
  async resolve(ref: Uri): Promise<never> {
    throw new Error(
      `not followed: ${ref.href()} (${what} $refs are not followed with refs: "${policy}"; pass --refs remote to follow them, for a document you trust)`,
    );
  },
});

/** A resolver that follows what `policy` allows, for a document read from `source`. */
export function createResolver(policy: RefPolicy, source: string | undefined): Resolver {
  if (policy === 'remote') return createHttpAndFileResolver();
  const folder =
    policy === 'files' && source && !/^https?:/i.test(source) ? dirname(resolve(source)) : undefined;
  const file = folder
    ? {
        async resolve(ref: Uri): Promise<string> {
          const path = resolve(ref.href());
          // Judged by where the path really leads (issue 30, N4): a symlink inside the folder to a
          // file outside it is outside. The real path is what is read.
          const [real, root] = await Promise.all([realpath(path), realpath(folder)]).catch(
            (e: NodeJS.ErrnoException) => {
              throw new Error(`cannot read ${path}: ${e.code ?? e.message}`);
            },
          );
          if (!path.startsWith(folder + sep) || !real.startsWith(root + sep))
            throw new Error(`not followed: ${path} is outside the document's folder ${folder}`);
          return readFile(real, 'utf8');
        },
      }
    : refuse('file', policy);
  return new Resolver({
    resolvers: { http: refuse('remote', policy), https: refuse('remote', policy), file },
  });
}
