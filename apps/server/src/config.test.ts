// Configuration mistakes refuse to start with a message that names the mistake (issue 15, D6): a
// blank key list, an unknown NODE_ENV, a key listed twice or one that can never authenticate used to
// start silently (the first two in dev mode, which lets webhooks reach 127.0.0.1 over http).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, hashKey, loadConfig } from './config.js';

const dataDir = mkdtempSync(join(tmpdir(), 'surety-config-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const KEY_A = 'sk_test_aaaaaaaaaaaaaaaa';
const KEY_B = 'sk_test_bbbbbbbbbbbbbbbb';
const load = (env: Record<string, string>) => loadConfig({ SURETY_DATA_DIR: dataDir, ...env });

function refuses(env: Record<string, string>, message: RegExp): void {
  assert.throws(
    () => load(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
      assert.match(error.message, message);
      return true;
    },
  );
}

describe('API keys', () => {
  test('dev mode only when SURETY_API_KEYS is not set at all, with a generated key', () => {
    const config = load({});
    assert.equal(config.devMode, true);
    assert.ok(config.devKey?.startsWith('sk_dev_'));
    assert.equal(config.apiKeys.get(hashKey(config.devKey!)), 'dev');
    assert.equal(config.webhookAllowHttp, true);
  });

  test('keys given: not dev mode, each key maps to its tenant', () => {
    const config = load({ SURETY_API_KEYS: `acme:${KEY_A}, globex:${KEY_B}` });
    assert.equal(config.devMode, false);
    assert.equal(config.webhookAllowHttp, false);
    assert.equal(config.apiKeys.get(hashKey(KEY_A)), 'acme');
    assert.equal(config.apiKeys.get(hashKey(KEY_B)), 'globex');
  });

  for (const blank of ['', ' ', ' , ', ',', ',,,', '\t']) {
    test(`a blank list (${JSON.stringify(blank)}) is refused, not dev mode`, () => {
      refuses({ SURETY_API_KEYS: blank }, /SURETY_API_KEYS is set but has no tenant:key pair.*unset it/);
    });
  }

  test('an empty entry between pairs is refused and named', () => {
    refuses({ SURETY_API_KEYS: `acme:${KEY_A},,globex:${KEY_B}` }, /SURETY_API_KEYS entry 2 is empty/);
    refuses({ SURETY_API_KEYS: `acme:${KEY_A},` }, /SURETY_API_KEYS entry 2 is empty/);
  });

  test('the same key for two tenants is refused, naming both tenants and not the key', () => {
    assert.throws(
      () => load({ SURETY_API_KEYS: `acme:${KEY_A},globex:${KEY_A}` }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(
          error.message,
          /entries 1 \(tenant "acme"\) and 2 \(tenant "globex"\) have the same key/,
        );
        assert.ok(!error.message.includes(KEY_A), 'the key itself is never printed');
        return true;
      },
    );
    refuses({ SURETY_API_KEYS: `acme:${KEY_A},acme:${KEY_A}` }, /entries 1 .* and 2 .* have the same key/);
  });

  for (const [what, key] of [
    ['a space', 'sk_test_aaaa aaaaaaaaaaaa'],
    ['a tab', 'sk_test_aaaa\taaaaaaaaaaaa'],
    ['a non-ASCII character', 'sk_test_aaaaaaaaaaaaaaaé'],
    ['a control character', 'sk_test_aaaaaaaaaaaa\u0000aaa'],
  ]) {
    test(`a key with ${what} inside is refused (it could never authenticate)`, () => {
      refuses(
        { SURETY_API_KEYS: `acme:${KEY_B},globex:${key}` },
        /SURETY_API_KEYS entry 2 \(tenant "globex"\): the key may only contain visible ASCII/,
      );
    });
  }

  test('a short key, a bad tenant name or a missing colon name the entry', () => {
    refuses({ SURETY_API_KEYS: 'acme:short' }, /entry 1 \(tenant "acme"\): the key must be at least 16/);
    refuses(
      { SURETY_API_KEYS: 'acme:ps_0123456789abcdef' },
      /entry 1 \(tenant "acme"\): the key may not start with "ps_"/,
    );
    refuses({ SURETY_API_KEYS: `a b:${KEY_A}` }, /entry 1: the tenant name must be 1-64 of/);
    refuses({ SURETY_API_KEYS: KEY_A }, /entry 1 is not "tenant:key"/);
  });
});

describe('NODE_ENV', () => {
  for (const value of ['production', 'development', 'test', '']) {
    test(`${JSON.stringify(value)} is accepted`, () => {
      assert.equal(load({ NODE_ENV: value, SURETY_API_KEYS: `acme:${KEY_A}` }).devMode, false);
    });
  }

  for (const value of ['Production', 'prod', 'PRODUCTION', 'staging', ' production']) {
    test(`${JSON.stringify(value)} is refused, with or without keys`, () => {
      refuses({ NODE_ENV: value }, /NODE_ENV must be "production", "development" or "test"/);
      refuses({ NODE_ENV: value, SURETY_API_KEYS: `acme:${KEY_A}` }, /NODE_ENV must be/);
    });
  }

  test('production without keys refuses, as before', () => {
    refuses({ NODE_ENV: 'production' }, /SURETY_API_KEYS is not set; refusing to start without API keys/);
  });
});

describe('limits', () => {
  test('SURETY_MAX_ENDPOINTS_PER_TENANT: 10,000 by default, an integer from 1', () => {
    assert.equal(load({ SURETY_API_KEYS: `acme:${KEY_A}` }).webhookMaxEndpointsPerTenant, 10_000);
    const set = load({ SURETY_API_KEYS: `acme:${KEY_A}`, SURETY_MAX_ENDPOINTS_PER_TENANT: '25' });
    assert.equal(set.webhookMaxEndpointsPerTenant, 25);
    for (const bad of ['0', '-1', '1.5', 'many']) {
      refuses(
        { SURETY_API_KEYS: `acme:${KEY_A}`, SURETY_MAX_ENDPOINTS_PER_TENANT: bad },
        /SURETY_MAX_ENDPOINTS_PER_TENANT must be an integer/,
      );
    }
  });
});

describe('SURETY_PUBLIC_URL', () => {
  test('unset by default; an http(s) origin with an optional path, no trailing slash', () => {
    const keys = { SURETY_API_KEYS: `acme:${KEY_A}` };
    assert.equal(load(keys).publicUrl, undefined);
    assert.equal(
      load({ ...keys, SURETY_PUBLIC_URL: 'https://Hooks.Example.com/' }).publicUrl,
      'https://hooks.example.com',
    );
    assert.equal(
      load({ ...keys, SURETY_PUBLIC_URL: 'https://x.example/api/' }).publicUrl,
      'https://x.example/api',
    );
    for (const bad of [
      'hooks.example.com',
      'ftp://x.example',
      'https://u:p@x.example',
      'https://x.example/?a=1',
      'https://x.example/#f',
    ]) {
      refuses({ ...keys, SURETY_PUBLIC_URL: bad }, /SURETY_PUBLIC_URL/);
    }
  });
});

describe('the naive-ORM guard', () => {
  // Read with the rest of the configuration, not by app.ts from the environment (issue 34).
  test('SURETY_IDEMPOTENCY_GUARD: off unless true, 1 or yes, whatever NODE_ENV says', () => {
    const keys = { SURETY_API_KEYS: `acme:${KEY_A}` };
    assert.equal(load(keys).idempotencyGuard, false);
    assert.equal(load({ ...keys, NODE_ENV: 'development' }).idempotencyGuard, false);
    assert.equal(load({ ...keys, SURETY_IDEMPOTENCY_GUARD: 'true' }).idempotencyGuard, true);
    assert.equal(load({ ...keys, SURETY_IDEMPOTENCY_GUARD: 'YES' }).idempotencyGuard, true);
    assert.equal(load({ ...keys, SURETY_IDEMPOTENCY_GUARD: 'off' }).idempotencyGuard, false);
  });
});

describe('the read replica (SURETY_DATABASE_REPLICA_URL)', () => {
  test('a postgres:// URL beside DATABASE_URL is taken; unset, there is none', () => {
    const keys = { SURETY_API_KEYS: `acme:${KEY_A}` };
    const url = 'postgres://u@127.0.0.1:5433/db';
    assert.equal(load({ ...keys, DATABASE_URL: url }).databaseReplicaUrl, undefined);
    assert.equal(
      load({ ...keys, DATABASE_URL: url, SURETY_DATABASE_REPLICA_URL: 'postgres://u@127.0.0.1:5434/db' })
        .databaseReplicaUrl,
      'postgres://u@127.0.0.1:5434/db',
    );
  });

  test('refused without DATABASE_URL, or when it is not a postgres:// URL', () => {
    const keys = { SURETY_API_KEYS: `acme:${KEY_A}` };
    refuses({ ...keys, SURETY_DATABASE_REPLICA_URL: 'postgres://u@127.0.0.1:5434/db' }, /need DATABASE_URL/);
    refuses(
      { ...keys, DATABASE_URL: 'postgres://u@127.0.0.1:5433/db', SURETY_DATABASE_REPLICA_URL: 'http://x/db' },
      /SURETY_DATABASE_REPLICA_URL must be a postgres:\/\/ URL/,
    );
  });
});
