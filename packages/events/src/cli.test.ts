import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceRegistry } from '../test/service-catalogue.js';
import { serviceContract, toJson, toYaml } from './asyncapi.js';
import { CATALOGUE_END, CATALOGUE_START } from './catalogue.js';
import { runContractsCli } from './cli.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'surety-contracts-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[], registry = serviceRegistry()) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runContractsCli(argv, {
    cwd: dir,
    registry,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const contract = () => serviceContract(serviceRegistry());
const withoutType = (type: string, version?: string) => {
  const d = contract();
  delete d.components!.messages![type];
  if (version) d.info.version = version;
  return d;
};

describe('surety-contracts without a registry (the standalone command)', () => {
  it('diffs, but refuses check and generate with exit 2: the library ships no catalogue', async () => {
    for (const command of ['check', 'generate']) {
      const err: string[] = [];
      const code = await runContractsCli([command], {
        cwd: dir,
        stdout: () => {},
        stderr: (t) => err.push(t),
      });
      assert.equal(code, 2, command);
      assert.match(err.join('\n'), /your service's event registry/);
    }
    await writeFile(join(dir, 'same.json'), toJson(contract()));
    const code = await runContractsCli(['diff', 'same.json', 'same.json'], { cwd: dir, stdout: () => {} });
    assert.equal(code, 0);
  });
});

describe('surety-contracts diff', () => {
  it('exits 0 on no change and on additive changes, reading JSON and YAML', async () => {
    await writeFile(join(dir, 'a.json'), toJson(contract()));
    await writeFile(join(dir, 'a.yaml'), toYaml(contract()));
    await writeFile(join(dir, 'fewer.json'), toJson(withoutType('webhook.test')));
    assert.deepEqual(await run(['diff', 'a.json', 'a.yaml']), {
      code: 0,
      out: 'contract 1.0.0 → 1.0.0\nno changes',
      err: '',
    });
    const added = await run(['diff', 'fewer.json', 'a.json']);
    assert.equal(added.code, 0);
    assert.match(added.out, /\+ webhook\.test: event type webhook\.test was added \[event-type-added\]/);
  });

  it('exits 1 on a breaking change, even with a major raise unless --allow-major', async () => {
    await writeFile(join(dir, 'a.json'), toJson(contract()));
    await writeFile(join(dir, 'v2.json'), toJson(withoutType('webhook.test', '2.0.0')));
    const r = await run(['diff', 'a.json', 'v2.json']);
    assert.equal(r.code, 1);
    assert.match(r.out, /✗ webhook\.test: event type webhook\.test was removed \[event-type-removed\]/);
    assert.equal((await run(['diff', 'a.json', 'v2.json', '--allow-major'])).code, 0);
    const json = await run(['diff', 'a.json', 'v2.json', '--json']);
    assert.equal(JSON.parse(json.out).changes[0].kind, 'event-type-removed');
  });

  it('exits 2 on bad usage and unreadable input', async () => {
    assert.equal((await run(['diff', 'a.json'])).code, 2);
    assert.equal((await run([])).code, 2);
    assert.equal((await run(['frobnicate'])).code, 2);
    assert.equal((await run(['help'])).code, 0);
    assert.match((await run(['diff', 'a.json', 'missing.json'])).err, /ENOENT/);
    await writeFile(join(dir, 'v2doc.json'), '{"asyncapi":"2.6.0"}');
    const r = await run(['diff', 'v2doc.json', 'a.json']);
    assert.equal(r.code, 2);
    assert.match(r.err, /SURETY_CONTRACT_INVALID_DOCUMENT/);
  });
});

describe('surety-contracts generate and check', () => {
  it('writes the contract and the catalogue, then checks clean', async () => {
    await writeFile(
      join(dir, 'events.md'),
      `# Events\n\nintro\n\n${CATALOGUE_START}\nold\n${CATALOGUE_END}\n\noutro\n`,
    );
    const g = await run(['generate', '--out', 'c.json', '--yaml', 'c.yaml', '--docs', 'events.md']);
    assert.equal(g.code, 0, g.err);
    assert.deepEqual(JSON.parse(await readFile(join(dir, 'c.json'), 'utf8')), contract());
    const md = await readFile(join(dir, 'events.md'), 'utf8');
    assert.match(md, /intro[\s\S]*### `order\.shipped`[\s\S]*outro/);
    assert.ok(!md.includes('\nold\n'));
    assert.equal((await run(['check', 'c.json'])).code, 0);
  });

  it('check fails on a stale committed contract, and on a breaking one without a major raise', async () => {
    await writeFile(join(dir, 'stale.json'), toJson(withoutType('webhook.test')));
    const stale = await run(['check', 'stale.json']);
    assert.equal(stale.code, 1);
    assert.match(stale.err, /stale: run `npm run contracts:generate`/);

    const extra = serviceRegistry().register({
      type: 'parcel.sent',
      description: 'A parcel was sent.',
      schema: { type: 'object', properties: {} },
      sample: {},
    });
    await writeFile(join(dir, 'bigger.json'), toJson(serviceContract(extra)));
    const broken = await run(['check', 'bigger.json']);
    assert.equal(broken.code, 1);
    assert.match(broken.out, /BREAKING/);
  });

  it('generate refuses a breaking change without a major raise, unless --force', async () => {
    const extra = serviceRegistry().register({
      type: 'parcel.sent',
      description: 'A parcel was sent.',
      schema: { type: 'object', properties: {} },
      sample: {},
    });
    await writeFile(join(dir, 'old.json'), toJson(serviceContract(extra)));
    const refused = await run(['generate', '--out', 'old.json']);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /refusing to overwrite/);
    assert.ok((await readFile(join(dir, 'old.json'), 'utf8')).includes('parcel.sent'));
    assert.equal((await run(['generate', '--out', 'old.json', '--force'])).code, 0);
    assert.ok(!(await readFile(join(dir, 'old.json'), 'utf8')).includes('parcel.sent'));
  });
});
