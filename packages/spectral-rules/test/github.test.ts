// A large real-world document: GitHub's REST API (OpenAPI 3.0.3, 13 MB, ~1,100 operations, 270
// x-webhooks), as @octokit/openapi ships it. The findings were reviewed for false positives
// (docs/contracts.md, "What it finds in GitHub's API"); this test keeps what the review found.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { type LintReport, lint } from '../src/lint.js';

const require = createRequire(import.meta.url);
let file: string | undefined;
try {
  file = join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated', 'api.github.com.json');
} catch {}

describe("GitHub's REST API document", {
  skip: file && existsSync(file) ? false : 'needs the @octokit/openapi devDependency',
}, () => {
  let report: LintReport;
  const count = (rule: string) => report.findings.filter((f) => f.rule === rule).length;
  const has = (rule: string, text: string) =>
    report.findings.some((f) => f.rule === rule && f.message.includes(text));

  test('lints in one pass, with no finding about the document itself', { timeout: 240_000 }, async (t) => {
    report = await lint(file!);
    const byRule: Record<string, number> = {};
    for (const f of report.findings) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
    t.diagnostic(JSON.stringify(byRule));
    assert.ok(
      report.findings.every((f) => f.rule.startsWith('surety-')),
      'no invalid-ref or format finding',
    );
  });

  test('true positives: unkeyed POSTs, undocumented Retry-After and ETag, webhooks signed without a timestamp', () => {
    assert.ok(has('surety-post-idempotency-key', 'POST /repos/{owner}/{repo}/issues is unsafe'));
    assert.ok(count('surety-post-idempotency-key') > 150);
    assert.ok(has('surety-retry-after', 'answers 503'));
    assert.ok(has('surety-read-etag', 'GET /emojis answers 200'), 'a GET documenting 304 without ETag');
    // X-Hub-Signature-256 is an HMAC of the body alone: a captured delivery can be replayed.
    assert.equal(count('surety-webhook-timestamp'), 270);
    assert.equal(count('surety-webhook-signature'), 0, 'every x-webhook declares X-Hub-Signature-256');
    assert.ok(count('surety-problem-json') > 1000, 'GitHub documents errors as application/json');
  });

  test('unversioned writes: a PATCH of an issue is one; a bodiless PUT (follow, star) is not', () => {
    // 253 findings on the document of 2026-11 (100 PUT, 66 PATCH, 87 DELETE); a review of 40 drawn at
    // random found 11 where a lost update cannot happen (docs/contracts.md, "What it finds").
    assert.ok(has('surety-write-unversioned', 'PATCH /repos/{owner}/{repo}/issues/{issue_number}'));
    assert.ok(has('surety-write-unversioned', 'PATCH /gists/{gist_id}'));
    assert.ok(!has('surety-write-unversioned', 'PUT /user/following/{username}'));
    assert.ok(!has('surety-write-unversioned', 'PUT /user/starred/{owner}/{repo}'));
    assert.ok(count('surety-write-unversioned') > 200);
  });

  test('no false positive the review found: a version sent in the body stands for If-Match', () => {
    // PATCH /orgs/{org}/secret-scanning/custom-patterns/{pattern_id} documents 412 and takes
    // custom_pattern_version in its body: a precondition, without the header.
    assert.equal(count('surety-write-if-match'), 0);
    assert.equal(count('surety-write-412'), 0);
    // GitHub takes no Idempotency-Key, so none of the key's follow-up rules can fire.
    assert.equal(count('surety-idempotency-conflicts') + count('surety-idempotency-key-expiry'), 0);
  });
});
