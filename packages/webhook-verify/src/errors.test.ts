// Two installed copies of the package (two versions in one node_modules tree) must recognise each
// other's errors: a second module instance of errors.ts stands for the other copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isWebhookVerificationError, WebhookErrorCode, WebhookVerificationError } from './errors.js';
import { problemForError } from './http.js';

const other = (await import(`./errors.js?copy=${Date.now()}`)) as typeof import('./errors.js');

test('the second copy is a different module (its class is not ours)', () => {
  assert.notEqual(other.WebhookVerificationError, WebhookVerificationError);
});

test('errors of the other copy are recognised by instanceof, the guard and the receivers', () => {
  const old = new other.WebhookVerificationError(WebhookErrorCode.TimestampTooOld, 'too old');
  assert.ok(old instanceof WebhookVerificationError);
  assert.ok(isWebhookVerificationError(old));
  assert.equal(old.code, 'SURETY_WEBHOOK_TIMESTAMP_TOO_OLD');
  assert.equal(problemForError(old)?.code, 'webhook_timestamp_too_old');
  assert.throws(
    () => other.fail(WebhookErrorCode.BadSecret, 'empty secret'),
    (e: unknown) => e instanceof WebhookVerificationError && e.code === 'SURETY_WEBHOOK_BAD_SECRET',
  );
});

test('plain errors and look-alikes without the brand are not ours', () => {
  const fake = Object.assign(new Error('x'), { code: 'SURETY_WEBHOOK_TIMESTAMP_TOO_OLD' });
  assert.ok(!(fake instanceof WebhookVerificationError) && !isWebhookVerificationError(fake));
  assert.ok(!isWebhookVerificationError(null) && !isWebhookVerificationError('SURETY_WEBHOOK_BAD_SECRET'));
  assert.equal(problemForError(fake), undefined);
});
