// The checks every smoke app runs against itself over HTTP on 127.0.0.1 (scripts/packages/orm-smoke.mjs
// installs each app from the tarballs, compiles it with tsc and runs it with plain node):
//   a keyed POST, then its replay (the same bytes, Idempotent-Replayed: true);
//   20 concurrent duplicates of a new key: 201 or 409 each, and exactly one row;
//   a handler that throws after its write: a 5xx, and no row (the write rolled back with the key).
// Each app answers POST /payments { id, cents, fail? } with 201 { id, cents }, writing through its ORM
// on the key's transaction, and throws after the write when `fail` is set.

/** The body every smoke app's POST /payments takes. */
export interface PaymentBody {
  id: string;
  cents: number;
  fail?: boolean;
}

export interface SmokeApp {
  /** The app's base URL, on 127.0.0.1. */
  url: string;
  /** How many payments rows have this id, read outside any request. */
  count(id: string): Promise<number>;
  /** Stops the server, drops the app's schema, closes its pools. */
  close(): Promise<void>;
}

export async function check(name: string, app: SmokeApp): Promise<void> {
  const run = `${process.pid}_${Date.now()}`;
  const failures: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) failures.push(what);
  };
  const post = async (key: string, body: PaymentBody) => {
    const res = await fetch(`${app.url}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.text() };
  };
  try {
    // 1 and 2: a keyed POST and its replay.
    const one = { id: `pay_${run}_1`, cents: 1999 };
    const first = await post(`key_${run}_1`, one);
    expect(first.status === 201, `keyed POST: 201 expected, got ${first.status} ${first.body}`);
    expect(first.body.includes(`"id":"${one.id}"`), `keyed POST: the payment's id expected in ${first.body}`);
    const replay = await post(`key_${run}_1`, one);
    expect(
      replay.status === 201 && replay.replayed === 'true' && replay.body === first.body,
      `replay: 201, Idempotent-Replayed: true and the same body expected, got ${replay.status} ${replay.replayed} ${replay.body}`,
    );
    expect((await app.count(one.id)) === 1, 'keyed POST and replay: exactly one row expected');

    // 3: 20 concurrent duplicates.
    const two = { id: `pay_${run}_2`, cents: 500 };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(`key_${run}_2`, two)));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.every((s) => s === 201 || s === 409) && statuses.includes(201),
      `20 duplicates: each 201 or 409, one 201 at least; got ${statuses.join(',')}`,
    );
    const rows = await app.count(two.id);
    expect(rows === 1, `20 duplicates: exactly one row expected, found ${rows}`);

    // 4: a throw after the write.
    const three = { id: `pay_${run}_3`, cents: 1, fail: true };
    const failed = await post(`key_${run}_3`, three);
    expect(
      failed.status >= 500,
      `throw after the write: a 5xx expected, got ${failed.status} ${failed.body}`,
    );
    const left = await app.count(three.id);
    expect(left === 0, `throw after the write: no row expected, found ${left}`);
  } finally {
    await app.close();
  }
  if (failures.length > 0) throw new Error(`${name}:\n  ${failures.join('\n  ')}`);
  console.log(
    `${name}: keyed POST, replay, 20 concurrent duplicates -> 1 row, throw after the write -> 0 rows`,
  );
}
