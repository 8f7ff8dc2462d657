import { EventError } from '../errors.js';
import { isObject } from '../json-schema.js';
import { diffSchema } from './schema-diff.js';
import type { ContractChange } from './types.js';

/**
 * The result of comparing two contracts.
 * @example
 * const { breaking, changes, oldVersion, newVersion } = diffContracts(a, b);
 */
export interface ContractDiff {
  changes: ContractChange[];
  /** True when at least one change is breaking. */
  breaking: boolean;
  /** `info.version` of each side. */
  oldVersion: string;
  newVersion: string;
}

const invalid = (which: string, why: string) =>
  new EventError(
    'SURETY_CONTRACT_INVALID_DOCUMENT',
    `the ${which} document is not an AsyncAPI 3 document: ${why}`,
  );

/** Follows local `$ref`s (`#/components/...`) inside the document. */
function deref(doc: Record<string, unknown>, node: unknown): unknown {
  let current = node;
  for (let hops = 0; hops < 20 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) return current;
    let at: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const seg = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      at = isObject(at) ? at[seg] : undefined;
    }
    current = at;
  }
  return current;
}

/** Event type → { headers, payload } of every message in `components.messages`. */
function messagesOf(doc: unknown, which: string): Map<string, { headers: unknown; payload: unknown }> {
  if (!isObject(doc)) throw invalid(which, 'not an object');
  if (typeof doc.asyncapi !== 'string' || !doc.asyncapi.startsWith('3.')) {
    throw invalid(which, `asyncapi is ${JSON.stringify(doc.asyncapi)}`);
  }
  const components = doc.components;
  const messages = isObject(components) && isObject(components.messages) ? components.messages : {};
  const out = new Map<string, { headers: unknown; payload: unknown }>();
  for (const [key, raw] of Object.entries(messages)) {
    const m = deref(doc, raw);
    if (!isObject(m)) continue;
    const type = typeof m.name === 'string' ? m.name : key;
    out.set(type, { headers: deref(doc, m.headers), payload: deref(doc, m.payload) });
  }
  return out;
}

const versionOf = (doc: unknown): string =>
  isObject(doc) && isObject(doc.info) && typeof doc.info.version === 'string' ? doc.info.version : '0.0.0';

/**
 * Compares two AsyncAPI 3 documents (as produced by `buildAsyncApi`): event types added or removed,
 * and for each type present in both, its payload (envelope and `data`) and headers schemas.
 * Order: removed types, added types, then changes per type, in the new document's order.
 * Throws EventError `SURETY_CONTRACT_INVALID_DOCUMENT` when either side is not AsyncAPI 3.
 * @example
 * const { breaking, changes } = diffContracts(committed, buildAsyncApi(registry));
 * if (breaking) console.error(formatReport(diffContracts(committed, generated)));
 */
export function diffContracts(oldDoc: unknown, newDoc: unknown): ContractDiff {
  const before = messagesOf(oldDoc, 'old');
  const after = messagesOf(newDoc, 'new');
  const changes: ContractChange[] = [];
  for (const type of before.keys()) {
    if (!after.has(type)) {
      changes.push({
        kind: 'event-type-removed',
        eventType: type,
        path: '',
        breaking: true,
        message: `event type ${type} was removed`,
      });
    }
  }
  for (const type of after.keys()) {
    if (!before.has(type)) {
      changes.push({
        kind: 'event-type-added',
        eventType: type,
        path: '',
        breaking: false,
        message: `event type ${type} was added`,
      });
    }
  }
  for (const [type, a] of after) {
    const b = before.get(type);
    if (b === undefined) continue;
    diffSchema(b.payload, a.payload, '/payload', changes, type);
    diffSchema(b.headers ?? {}, a.headers ?? {}, '/headers', changes, type);
  }
  return {
    changes,
    breaking: changes.some((c) => c.breaking),
    oldVersion: versionOf(oldDoc),
    newVersion: versionOf(newDoc),
  };
}

/**
 * The major of a semver-ish version; NaN when it does not start with a number.
 * @example
 * majorOf('2.1.0'); // 2
 */
export const majorOf = (version: string): number => {
  const m = /^v?(\d+)/.exec(version.trim());
  return m ? Number(m[1]) : Number.NaN;
};

/**
 * The rule for a committed contract: a breaking change is accepted only together with a higher
 * `info.version` major. (0.x gets no exemption: consumers of 0.x break just the same.)
 * @example
 * const diff = diffContracts(committed, generated);
 * if (!isAllowedChange(diff)) process.exitCode = 1;
 */
export function isAllowedChange(diff: ContractDiff): boolean {
  if (!diff.breaking) return true;
  return majorOf(diff.newVersion) > majorOf(diff.oldVersion);
}

/**
 * A readable report: breaking changes first, then additive ones, one per line, and a verdict.
 * @example
 * console.log(formatReport(diffContracts(oldDoc, newDoc)));
 */
export function formatReport(diff: ContractDiff): string {
  const line = (c: ContractChange) =>
    `  ${c.breaking ? '✗' : '+'} ${c.eventType === undefined ? '' : `${c.eventType}: `}${c.message} [${c.kind}]`;
  const breaking = diff.changes.filter((c) => c.breaking);
  const other = diff.changes.filter((c) => !c.breaking);
  const out = [`contract ${diff.oldVersion} → ${diff.newVersion}`];
  if (diff.changes.length === 0) out.push('no changes');
  if (breaking.length > 0) out.push(`${breaking.length} breaking:`, ...breaking.map(line));
  if (other.length > 0) out.push(`${other.length} additive or harmless:`, ...other.map(line));
  if (breaking.length > 0) {
    out.push(
      isAllowedChange(diff)
        ? `breaking changes accepted: info.version major raised (${diff.oldVersion} → ${diff.newVersion})`
        : 'BREAKING: consumers of the old contract would break',
    );
  }
  return out.join('\n');
}
