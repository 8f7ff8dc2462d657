// The CI gate of issue 8: the contract generated from the registry must not break the committed
// contracts/asyncapi.json unless SERVICE_CONTRACT_VERSION's major was raised, and the committed file
// must be current (regenerate with `npm run contracts:generate`, which enforces the same rule).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { diffContracts, formatReport, isAllowedChange, serviceContract } from '@surety/events';
import { serviceRegistry } from '../src/service-events.js';

const committedPath = new URL('../../../contracts/asyncapi.json', import.meta.url);

describe('contracts/asyncapi.json', () => {
  it('is not broken by the generated contract without a major version raise', async () => {
    const committed = JSON.parse(await readFile(committedPath, 'utf8'));
    const diff = diffContracts(committed, serviceContract(serviceRegistry()));
    assert.ok(
      isAllowedChange(diff),
      `${formatReport(diff)}\n\nA breaking change needs a new major SERVICE_CONTRACT_VERSION (packages/events/src/asyncapi.ts).`,
    );
  });

  it('is current (run `npm run contracts:generate` after changing an event schema)', async () => {
    const committed = JSON.parse(await readFile(committedPath, 'utf8'));
    assert.deepEqual(committed, serviceContract(serviceRegistry()));
  });
});
