// Two installed copies of the package must recognise each other's errors: a second module instance
// of errors.ts stands for the other copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ApplicationNotFoundError,
  ApplicationUidTakenError,
  EndpointLimitError,
  EndpointNotFoundError,
  InvalidEventError,
  isApplicationNotFoundError,
  isApplicationUidTakenError,
  isEndpointLimitError,
  isEndpointNotFoundError,
  isInvalidEventError,
  isInvalidInputError,
  isWebhookError,
  WebhookError,
} from './errors.js';

const other = (await import(`./errors.js?copy=${Date.now()}`)) as typeof import('./errors.js');

test('the second copy is a different module', () => {
  assert.notEqual(other.EndpointNotFoundError, EndpointNotFoundError);
});

test("the other copy's errors are recognised by instanceof and the guards, by kind", () => {
  const missing = new other.EndpointNotFoundError();
  assert.ok(missing instanceof EndpointNotFoundError && missing instanceof WebhookError);
  assert.ok(isEndpointNotFoundError(missing) && isWebhookError(missing));
  assert.ok(!(missing instanceof EndpointLimitError) && !isEndpointLimitError(missing));
  assert.equal(missing.code, 'SURETY_ENDPOINT_NOT_FOUND');
  assert.ok(isEndpointLimitError(new other.EndpointLimitError(3)));
  assert.ok(isInvalidEventError(new other.InvalidEventError('x')));
  assert.ok(isInvalidInputError(new other.InvalidInputError('x')));
  assert.ok(new other.WebhookError('SURETY_INVALID_URL', 'x') instanceof WebhookError);
  assert.ok(!(new other.InvalidInputError('x') instanceof InvalidEventError));
  const app = new other.ApplicationNotFoundError('application');
  assert.ok(
    app instanceof ApplicationNotFoundError && isApplicationNotFoundError(app) && isWebhookError(app),
  );
  assert.deepEqual([app.code, app.field], ['SURETY_APPLICATION_NOT_FOUND', 'application']);
  assert.ok(!isEndpointNotFoundError(app) && !isApplicationUidTakenError(app));
  const taken = new other.ApplicationUidTakenError('cus_1');
  assert.ok(taken instanceof ApplicationUidTakenError && isApplicationUidTakenError(taken));
  assert.deepEqual([taken.code, taken.uid], ['SURETY_APPLICATION_UID_TAKEN', 'cus_1']);
});

test('plain errors and look-alikes without the brand are not ours', () => {
  const fake = Object.assign(new Error('x'), { code: 'SURETY_ENDPOINT_NOT_FOUND' });
  assert.ok(!(fake instanceof WebhookError) && !isEndpointNotFoundError(fake) && !isWebhookError(fake));
  assert.ok(!isWebhookError(null) && !isWebhookError('SURETY_ENDPOINT_NOT_FOUND'));
});
