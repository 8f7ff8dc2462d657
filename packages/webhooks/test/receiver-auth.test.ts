// Receiver authentication end to end on loopback (issue 37, docs/receiver-auth.md): a receiver that
// demands basic credentials, an HTTPS receiver that demands a client certificate (certificates made
// here with openssl, nothing committed), an OAuth2 token endpoint that counts its requests, hostile
// token endpoints, and the SSRF guard in front of the token URL. An injected clock drives the retry
// schedule and the token's expiry: no test sleeps for either.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, before, beforeEach, describe, test } from 'node:test';
import { type EndpointAuthInput, InvalidAuthError } from '../src/index.js';
import { type Hit, makePki, type Pki, startServer, until } from './auth-helpers.js';
import { LOOPBACK, useEngine } from './fixture.js';
import { listen, tableResolver } from './ssrf-helpers.js';

let clock = Date.parse('2026-06-01T00:00:00Z');
let pki: Pki;
let tenant: string;
const fx = useEngine({
  engine: { now: () => clock },
  worker: { random: () => 0, auth: { now: () => clock, failureHoldMs: 0 } },
});
const worker = fx.worker;

before(() => {
  pki = makePki();
});
function fresh() {
  tenant = fx.fresh();
}
const cleanup = fx.cleanup;

async function server(...args: Parameters<typeof startServer>) {
  const s = await startServer(...args);
  return fx.closeLater(s);
}

const endpoint = (url: string, auth: EndpointAuthInput | null) =>
  fx.webhooks.createEndpoint(fx.db.sql, { tenant, url, eventTypes: ['*'], auth }).then((r) => r.endpoint);

const publish = (n = 1) =>
  fx.db.sql.transaction(async (tx) => {
    for (let i = 0; i < n; i++) await fx.webhooks.publish(tx, { tenant, type: 'order.paid', data: { i } });
  });

const attempts = (endpointId: string) =>
  fx.db.sql
    .query<{ status: number | null; error_code: string | null; error_message: string | null }>(
      `select a.status, a.error_code, a.error_message from "${fx.db.schema}".webhook_attempts a
         join "${fx.db.schema}".webhook_deliveries d on d.id = a.delivery_id
        where d.tenant = $1 and d.endpoint_id = $2 order by a.started_at, a.attempt`,
      [tenant, endpointId],
    )
    .then((r) => r.rows);

const statuses = (endpointId: string) =>
  fx.db.sql
    .query<{ status: string }>(
      `select status from "${fx.db.schema}".webhook_deliveries where tenant = $1 and endpoint_id = $2 order by sequence`,
      [tenant, endpointId],
    )
    .then((r) => r.rows.map((x) => x.status));

/** Moves the clock past every retry so the next drain attempts them again. */
const advance = (ms = 3_600_000) => {
  clock += ms;
};

const ok = (hit: Hit) => void hit.res.writeHead(204).end();

describe('writing auth', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  test('secrets are stored and never returned: the answer shows the redacted form', async () => {
    const basic = await endpoint('https://example.com/a', {
      type: 'basic',
      username: 'u',
      password: 'hunter2-secret',
    });
    assert.deepEqual(basic.auth, { type: 'basic', username: 'u' });
    const oauth = await endpoint('https://example.com/b', {
      type: 'oauth2',
      tokenUrl: 'https://auth.example.com/token',
      clientId: 'cid',
      clientSecret: 'oauth-secret-value',
      scope: 'hooks:write',
    });
    assert.deepEqual(oauth.auth, {
      type: 'oauth2',
      tokenUrl: 'https://auth.example.com/token',
      clientId: 'cid',
      scope: 'hooks:write',
      audience: null,
      clientAuth: 'basic',
    });
    const mtls = await endpoint('https://example.com/c', {
      type: 'mtls',
      certificate: pki.clientA.cert,
      privateKey: pki.clientA.key,
    });
    assert.equal(mtls.auth?.type, 'mtls');
    assert.match(
      (mtls.auth as { certificateFingerprint: string }).certificateFingerprint,
      /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/,
    );
    assert.ok(Date.parse((mtls.auth as { notAfter: string }).notAfter) > clock);
    const listed = JSON.stringify(await fx.webhooks.listEndpoints(fx.db.sql, { tenant }));
    for (const secret of [
      'hunter2-secret',
      'oauth-secret-value',
      'PRIVATE KEY',
      pki.clientA.key.slice(40, 80),
    ])
      assert.ok(!listed.includes(secret), `listing leaks ${secret.slice(0, 12)}…`);
    const got = JSON.stringify(await fx.webhooks.getEndpoint(fx.db.sql, { tenant, id: mtls.id }));
    assert.ok(!got.includes('PRIVATE KEY'));
  });

  test('what cannot be used is refused with InvalidAuthError naming the field, and nothing is written', async () => {
    const cases: [unknown, string][] = [
      [{ type: 'digest' }, '/auth/type'],
      [{ type: 'basic', username: 'a:b', password: 'p' }, '/auth/username'],
      [{ type: 'basic', username: 'a', password: 'p\r\nX-Injected: 1' }, '/auth/password'],
      [{ type: 'basic', username: 'a' }, '/auth/password'],
      [{ type: 'basic', username: 'a', password: 'p', extra: 1 }, '/auth/extra'],
      [{ type: 'basic', username: 'a', password: 'x'.repeat(1025) }, '/auth/password'],
      [{ type: 'mtls', certificate: 'not a pem', privateKey: pki.clientA.key }, '/auth/certificate'],
      [{ type: 'mtls', certificate: pki.clientA.key, privateKey: pki.clientA.key }, '/auth/certificate'],
      [{ type: 'mtls', certificate: pki.clientA.cert, privateKey: pki.clientB.key }, '/auth/privateKey'],
      [{ type: 'mtls', certificate: pki.clientA.cert, privateKey: pki.encryptedKeyA }, '/auth/privateKey'],
      [{ type: 'mtls', certificate: pki.clientA.cert, privateKey: 'garbage' }, '/auth/privateKey'],
      [{ type: 'mtls', certificate: pki.clientA.cert, privateKey: pki.clientA.key, ca: 'nope' }, '/auth/ca'],
      // The token URL is checked like a webhook URL: blocked literal addresses, schemes.
      [
        { type: 'oauth2', tokenUrl: 'http://169.254.169.254/token', clientId: 'c', clientSecret: 's' },
        '/auth/tokenUrl',
      ],
      [
        { type: 'oauth2', tokenUrl: 'https://10.0.0.1/token', clientId: 'c', clientSecret: 's' },
        '/auth/tokenUrl',
      ],
      [
        { type: 'oauth2', tokenUrl: 'https://[::ffff:127.0.0.2]/t', clientId: 'c', clientSecret: 's' },
        '/auth/tokenUrl',
      ],
      [
        { type: 'oauth2', tokenUrl: 'ftp://auth.example.com/t', clientId: 'c', clientSecret: 's' },
        '/auth/tokenUrl',
      ],
      [
        {
          type: 'oauth2',
          tokenUrl: 'https://auth.example.com/t',
          clientId: 'c',
          clientSecret: 's',
          clientAuth: 'x',
        },
        '/auth/clientAuth',
      ],
    ];
    for (const [auth, path] of cases) {
      await assert.rejects(
        fx.webhooks.createEndpoint(fx.db.sql, {
          tenant,
          url: 'https://example.com/x',
          eventTypes: ['*'],
          auth: auth as EndpointAuthInput,
        }),
        (e: unknown) => {
          assert.ok(e instanceof InvalidAuthError, `${JSON.stringify(auth).slice(0, 60)}: ${String(e)}`);
          assert.equal(e.errors[0]?.path, path);
          // never the secret itself in the message
          assert.ok(!e.message.includes('PRIVATE KEY') && !e.message.includes('X-Injected'));
          return true;
        },
      );
    }
    // Only a webhook endpoint takes auth.
    await assert.rejects(
      fx.webhooks.createEndpoint(fx.db.sql, {
        tenant,
        kind: 'nats',
        url: 'nats://127.0.0.1:4222',
        destination: { subject: 'x' },
        eventTypes: ['*'],
        auth: { type: 'basic', username: 'a', password: 'b' },
      }),
      InvalidAuthError,
    );
    assert.equal((await fx.webhooks.listEndpoints(fx.db.sql, { tenant })).data.length, 0);
    // An update that cannot be used changes nothing.
    const e = await endpoint('https://example.com/a', { type: 'basic', username: 'u', password: 'p' });
    await assert.rejects(
      fx.webhooks.updateEndpoint(fx.db.sql, {
        tenant,
        id: e.id,
        ifVersion: e.version,
        patch: { auth: { type: 'mtls', certificate: pki.clientA.cert, privateKey: pki.clientB.key } },
      }),
      InvalidAuthError,
    );
    const after = await fx.webhooks.getEndpoint(fx.db.sql, { tenant, id: e.id });
    assert.equal(after?.version, e.version);
    assert.deepEqual(after?.auth, { type: 'basic', username: 'u' });
    // null removes it
    const cleared = await fx.webhooks.updateEndpoint(fx.db.sql, {
      tenant,
      id: e.id,
      ifVersion: e.version,
      patch: { auth: null },
    });
    assert.equal(cleared?.auth, null);
  });
});

describe('basic', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  test('the receiver gets the credentials; a wrong password is a recorded http_401, fixed by a PATCH', async () => {
    const expected = `Basic ${Buffer.from('surety:right-pw').toString('base64')}`;
    const rx = await server((hit) => void hit.res.writeHead(hit.who === expected ? 204 : 401).end());
    const e = await endpoint(rx.url, { type: 'basic', username: 'surety', password: 'wrong-pw' });
    await publish();
    const w = worker();
    await w.drain();
    assert.deepEqual(
      (await attempts(e.id)).map((a) => [a.status, a.error_code]),
      [[401, 'http_401']],
    );
    await fx.webhooks.updateEndpoint(fx.db.sql, {
      tenant,
      id: e.id,
      ifVersion: e.version,
      patch: { auth: { type: 'basic', username: 'surety', password: 'right-pw' } },
    });
    advance();
    await w.drain();
    assert.deepEqual(await statuses(e.id), ['delivered']);
    assert.equal(rx.hits.length, 2);
  });
});

describe('mtls', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  test('an HTTPS receiver that demands a client certificate gets it; a certificate it does not trust is tls_error', async () => {
    const rx = await server(ok, { ca: pki.ca, server: pki.server });
    const good = await endpoint(rx.url, {
      type: 'mtls',
      certificate: pki.clientA.cert,
      privateKey: pki.clientA.key,
      ca: pki.ca,
    });
    const bad = await endpoint(rx.url, {
      type: 'mtls',
      certificate: pki.stranger.cert,
      privateKey: pki.stranger.key,
      ca: pki.ca,
    });
    await publish();
    await worker().drain();
    assert.deepEqual(await statuses(good.id), ['delivered']);
    assert.deepEqual(
      rx.hits.map((h) => h.who),
      ['client-a'],
    );
    const failed = await attempts(bad.id);
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.error_code, 'tls_error');
    assert.equal(failed[0]!.status, null);
    assert.deepEqual(await statuses(bad.id), ['pending']); // retried on the schedule
  });

  test('an endpoint without auth gets no certificate: the same receiver refuses it', async () => {
    const rx = await server(ok, { ca: pki.ca, server: pki.server });
    const e = await endpoint(rx.url, null);
    await publish();
    await worker({ guard: { allowList: LOOPBACK, allowHttp: true, tls: { ca: pki.ca } } }).drain();
    // Not an mTLS endpoint: the close is reported as what it looks like.
    assert.match(String((await attempts(e.id))[0]?.error_code), /^(tls_error|connection_error)$/);
    assert.equal(rx.hits.length, 0);
  });

  test('rotation: a delivery in flight with the old certificate completes; the next ones use the new one; none lost', async () => {
    let release: (() => void) | undefined;
    const rx = await server(
      (hit, n) => {
        if (n === 1) release = () => void hit.res.writeHead(204).end();
        else ok(hit);
      },
      { ca: pki.ca, server: pki.server },
    );
    const e = await endpoint(rx.url, {
      type: 'mtls',
      certificate: pki.clientA.cert,
      privateKey: pki.clientA.key,
      ca: pki.ca,
    });
    await publish();
    const w = worker({ pollIntervalMs: 20 });
    const finished: string[] = [];
    w.on('attempt:finished', (a) => finished.push(a.outcome));
    await w.start();
    await until(() => rx.hits.length === 1, 10_000, 'the first request');
    await fx.webhooks.updateEndpoint(fx.db.sql, {
      tenant,
      id: e.id,
      ifVersion: e.version,
      patch: {
        auth: { type: 'mtls', certificate: pki.clientB.cert, privateKey: pki.clientB.key, ca: pki.ca },
      },
    });
    await publish(2);
    // The new deliveries go out with B while A's request is still unanswered.
    await until(() => rx.hits.length === 3, 10_000, 'the requests after the rotation');
    // …and finish while it still is (its answer is only sent by release()).
    await until(() => finished.length === 2, 10_000, 'the attempts after the rotation');
    assert.equal(rx.hits[0]!.res.writableEnded, false);
    release!();
    await until(() => finished.length === 3, 10_000, 'the held attempt');
    await w.stop();
    assert.deepEqual(
      rx.hits.map((h) => h.who),
      ['client-a', 'client-b', 'client-b'],
    );
    assert.deepEqual(await statuses(e.id), ['delivered', 'delivered', 'delivered']);
    assert.equal((await attempts(e.id)).length, 3);
  });
});

describe('oauth2', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  /** A token endpoint issuing tok-1, tok-2… valid `expiresIn` seconds, to client c / secret s only. */
  async function tokens(expiresIn = 3600) {
    const issued: string[] = [];
    const bodies: string[] = [];
    const srv = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        bodies.push(body);
        const form = new URLSearchParams(body);
        const okClient =
          req.headers.authorization === `Basic ${Buffer.from('c:s').toString('base64')}` ||
          (form.get('client_id') === 'c' && form.get('client_secret') === 's');
        if (!okClient || form.get('grant_type') !== 'client_credentials') {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
          return;
        }
        const token = `tok-${issued.length + 1}`;
        issued.push(token);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresIn }));
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    fx.closeLater({
      close: () =>
        new Promise<void>((r) => {
          srv.closeAllConnections();
          srv.close(() => r());
        }),
    });
    const port = (srv.address() as AddressInfo).port;
    return { url: `http://127.0.0.1:${port}/token`, issued, bodies };
  }

  test('a token is fetched once and cached, refreshed after it expires, and fetched again after a 401', async () => {
    const t = await tokens(120);
    let refuse = false;
    const rx = await server((hit) => void hit.res.writeHead(refuse ? 401 : 204).end());
    const e = await endpoint(rx.url, {
      type: 'oauth2',
      tokenUrl: t.url,
      clientId: 'c',
      clientSecret: 's',
      scope: 'hooks',
      audience: 'https://rx.example',
    });
    await publish(3);
    const w = worker();
    await w.drain();
    assert.deepEqual(await statuses(e.id), ['delivered', 'delivered', 'delivered']);
    assert.equal(t.issued.length, 1, 'one token request for three deliveries');
    assert.deepEqual(
      rx.hits.map((h) => h.who),
      ['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1'],
    );
    const form = new URLSearchParams(t.bodies[0]);
    assert.equal(form.get('scope'), 'hooks');
    assert.equal(form.get('audience'), 'https://rx.example');
    assert.equal(form.get('client_secret'), null, 'basic client authentication by default');

    // 120 s lifetime, 30 s margin: still cached at +89 s, renewed at +91 s.
    clock += 89_000;
    await publish();
    await w.drain();
    assert.equal(t.issued.length, 1);
    clock += 2_000;
    await publish();
    await w.drain();
    assert.equal(t.issued.length, 2);
    assert.equal(rx.hits.at(-1)?.who, 'Bearer tok-2');

    // The receiver refuses the token: recorded as http_401, and the next attempt fetches a new one.
    refuse = true;
    await publish();
    await w.drain();
    assert.equal((await attempts(e.id)).at(-1)?.error_code, 'http_401');
    refuse = false;
    advance(60_000);
    await w.drain();
    assert.equal(t.issued.length, 3);
    assert.equal(rx.hits.at(-1)?.who, 'Bearer tok-3');
    assert.deepEqual((await statuses(e.id)).slice(-1), ['delivered']);
  });

  test('clientAuth body sends the client id and secret in the form', async () => {
    const t = await tokens();
    const rx = await server(ok);
    const e = await endpoint(rx.url, {
      type: 'oauth2',
      tokenUrl: t.url,
      clientId: 'c',
      clientSecret: 's',
      clientAuth: 'body',
    });
    await publish();
    await worker().drain();
    assert.deepEqual(await statuses(e.id), ['delivered']);
    assert.equal(new URLSearchParams(t.bodies[0]).get('client_secret'), 's');
  });

  test('a wrong client secret is an attempt recorded as auth_token_failed; the receiver is never called', async () => {
    const t = await tokens();
    const rx = await server(ok);
    const e = await endpoint(rx.url, {
      type: 'oauth2',
      tokenUrl: t.url,
      clientId: 'c',
      clientSecret: 'wrong',
    });
    await publish();
    await worker().drain();
    const [a] = await attempts(e.id);
    assert.equal(a?.error_code, 'auth_token_failed');
    assert.match(a!.error_message!, /answered 401/);
    assert.ok(!a!.error_message!.includes('wrong'));
    assert.equal(rx.hits.length, 0);
    assert.deepEqual(await statuses(e.id), ['pending']);
  });

  test('hostile token endpoints (HTML, endless body, no answer, a bad token) are bounded attempts, never a stall', async () => {
    const rx = await server(ok);
    const hostile = await listen('127.0.0.1', 0, (req, res) => {
      req.resume();
      if (req.url === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
      else if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else if (req.url === '/hang') {
        // accept, never answer
      } else if (req.url === '/injection')
        res.writeHead(200).end(JSON.stringify({ access_token: 'x\r\nX-Evil: 1', token_type: 'Bearer' }));
      else if (req.url === '/mac')
        res.writeHead(200).end(JSON.stringify({ access_token: 'abc', token_type: 'mac' }));
      else res.writeHead(302, { location: `http://127.0.0.1:${rx.port}/token` }).end();
    });
    fx.closeLater(hostile);
    const base = `http://127.0.0.1:${hostile.port}`;
    const paths = ['/html', '/huge', '/hang', '/injection', '/mac', '/redirect'];
    const ids: string[] = [];
    for (const p of paths) {
      const e = await endpoint(rx.url, {
        type: 'oauth2',
        tokenUrl: `${base}${p}`,
        clientId: 'c',
        clientSecret: 's',
      });
      ids.push(e.id);
    }
    await publish();
    const started = Date.now();
    await worker({ auth: { now: () => clock, failureHoldMs: 0, timeoutMs: 500 } }).drain();
    assert.ok(Date.now() - started < 5_000, `drained in ${Date.now() - started} ms`);
    const messages: string[] = [];
    for (const id of ids) {
      const [a] = await attempts(id);
      assert.equal(a?.error_code, 'auth_token_failed');
      messages.push(a!.error_message!);
    }
    assert.match(messages[0]!, /not JSON/);
    assert.match(messages[1]!, /over 16384 bytes/);
    assert.match(messages[2]!, /timeout/);
    assert.match(messages[3]!, /no usable access_token/);
    assert.match(messages[4]!, /token_type/);
    assert.match(messages[5]!, /answered 302/);
    assert.equal(rx.hits.length, 0);
  });

  test('SSRF: a token URL whose name resolves to a blocked address is refused at fetch time; the canary sees nothing', async () => {
    const canary = await listen('127.0.0.2', 0);
    fx.closeLater(canary);
    const rx = await server(ok);
    const { resolver, calls } = tableResolver({ 'token.test': ['127.0.0.2'] });
    // Accepted when written: the name is not a literal address; checked when resolved.
    const e = await endpoint(rx.url, {
      type: 'oauth2',
      tokenUrl: `http://token.test:${canary.port}/token`,
      clientId: 'c',
      clientSecret: 's',
    });
    await publish();
    await worker({ guard: { allowList: LOOPBACK, allowHttp: true, resolver } }).drain();
    const [a] = await attempts(e.id);
    assert.equal(a?.error_code, 'auth_token_failed');
    assert.match(a!.error_message!, /ssrf_blocked/);
    assert.equal(calls.get('token.test'), 1);
    assert.equal(canary.hits.length, 0);
    assert.equal(rx.hits.length, 0);
  });
});
