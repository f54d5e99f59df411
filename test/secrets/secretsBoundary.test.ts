/**
 * Secrets by name at the boundary, with a fake provider: the plan refuses an
 * unknown name (naming the known ones, never a value), a secret on an action
 * that takes none, and a secret without a secrets file; the provider gets the
 * name and resolves the value; the guard fails a capture closed when a file
 * it would write holds a value in any form, a ZIP entry inflated included,
 * and nothing is written; the tool's schema shows `secret` only with a
 * secrets file; the trace records a secret's action by its name.
 */
import * as fs from 'fs';
import JSZip from 'jszip';
import { executeCapturePlan, planCapture } from '../../src/boundary';
import { ToolInputError } from '../../src/common/errors';
import { secretStore } from '../../src/common/secrets';
import { captureToolDeclaration, withSecretField } from '../../src/contract/toolDeclaration';
import { parseAction, traceCallOf } from '../../src/contract/actions';
import { guardFile, zipEntries } from '../../src/boundary/secretGuard';
import { FakeProvider, writes, type FakeBehaviour } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, listFiles, type RunFixture } from '../foundation/fixtures';

const VALUE = 'Tr0ub4dor&3 "x"';
const secrets = secretStore({ APP_PASSWORD: VALUE, APP_USER: 'someone@example.com' });
const fillSecret = { do: 'fill', selector: '#password', secret: 'APP_PASSWORD' };

let fx: RunFixture;
beforeEach(() => (fx = makeRunFixture()));
afterEach(() => fx.cleanup());

async function refusal(args: Record<string, unknown>, store = secrets): Promise<string> {
  try {
    await executeCapturePlan(args, { provider: new FakeProvider(), env: {}, secrets: store });
  } catch (err) {
    expect(err).toBeInstanceOf(ToolInputError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('the plan', () => {
  test('an unknown name is refused before any capture, naming the known names, never a value', async () => {
    const provider = new FakeProvider();
    const planned = planCapture(validArgs(fx.root, { actions: [{ ...fillSecret, secret: 'APP_PASWORD' }] }), {}, { secrets });
    expect(planned).toEqual({ kind: 'input', message: 'actions[0].secret: no secret named APP_PASWORD; the secrets file names APP_PASSWORD, APP_USER' });
    expect(provider.calls).toHaveLength(0);
    expect(JSON.stringify(planned)).not.toContain(VALUE);
  });

  test('a secret on an action that takes no value is refused naming the field and the rule', async () => {
    expect(await refusal(validArgs(fx.root, { actions: [{ do: 'click', selector: '#go', secret: 'APP_PASSWORD' }] }))).toBe(
      'actions[0].secret is not allowed on click: only fill and type may name a secret, in place of their value',
    );
    expect(await refusal(validArgs(fx.root, { actions: [{ do: 'press', key: 'Enter', secret: 'APP_PASSWORD' }] }))).toContain(
      'actions[0].secret is not allowed on press',
    );
  });

  test('a value and a secret together, or a secret that is not a name, are refused', async () => {
    expect(await refusal(validArgs(fx.root, { actions: [{ ...fillSecret, value: 'x' }] }))).toBe('actions[0]: give fill a value or a secret, not both');
    expect(await refusal(validArgs(fx.root, { actions: [{ ...fillSecret, secret: 'not a name' }] }))).toContain('actions[0].secret must be a secret');
  });

  test('a secret without a secrets file is refused, saying how to give one', async () => {
    expect(planCapture(validArgs(fx.root, { actions: [fillSecret] }), {})).toEqual({
      kind: 'input',
      message: expect.stringContaining('actions[0].secret names APP_PASSWORD, but no secrets file is configured (start the server with --secrets FILE'),
    });
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('the provider gets the name in its fields and the value from its context', async () => {
    let typed = '';
    const provider = new FakeProvider((args, context) => {
      const action = context.fields.actions[0] as { secret?: string; value?: string };
      expect(action).toEqual({ do: 'fill', selector: '#password', secret: 'APP_PASSWORD' });
      typed = context.secrets!.value(action.secret!);
      return writes()(args, context);
    });
    const result = await executeCapturePlan(validArgs(fx.root, { actions: [fillSecret] }), { provider, env: {}, secrets });
    expect(result.result).toBe('captured');
    expect(typed).toBe(VALUE);
    expect(JSON.stringify(result)).not.toContain(VALUE);
  });
});

describe('the trace call and the schema', () => {
  test("a secret's action is traced by its name", () => {
    expect(traceCallOf(parseAction(fillSecret, 0)).params).toEqual({ selector: '#password', value: '<secret APP_PASSWORD>' });
    expect(traceCallOf(parseAction({ do: 'type', selector: '#u', secret: 'APP_USER' }, 0)).params).toEqual({ selector: '#u', text: '<secret APP_USER>' });
  });

  test('the input schema shows `secret` only with a secrets file', () => {
    const plain = captureToolDeclaration();
    expect(JSON.stringify(plain)).not.toContain('"secret"');
    const withSecrets = withSecretField(plain);
    const items = (withSecrets.inputSchema.properties as any).actions.items;
    expect(Object.keys(items.properties)).toEqual(['do', 'selector', 'value', 'text', 'secret', 'key', 'label', 'state', 'ms', 'timeout_ms']);
    expect(items.properties.secret).toMatchObject({ type: 'string' });
    // Nothing else changes.
    delete items.properties.secret;
    expect(withSecrets).toEqual(plain);
  });
});

/** A provider whose bytes hold the value. */
const leaking = (bytes: Buffer | string): FakeBehaviour => writes(bytes);

async function zipWith(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(entries)) zip.file(name, data, { compression: 'DEFLATE' });
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe('the guard before the commit', () => {
  const forms: Array<[string, string]> = [
    ['plain', VALUE],
    ['URL-encoded', encodeURIComponent(VALUE)],
    ['form-encoded', new URLSearchParams({ v: VALUE }).toString().slice(2)],
    ['base64', Buffer.from(`ab${VALUE}cd`).toString('base64')],
    ['JSON-escaped', JSON.stringify(VALUE)],
    ['HTML-escaped', VALUE.replace(/&/g, '&amp;').replace(/"/g, '&quot;')],
  ];

  test.each(forms)('a %s value in the artifact fails closed, naming the secret and the file, and nothing is written', async (encoding, text) => {
    const provider = new FakeProvider(leaking(`{"format":"aria_snapshot","tree":"- textbox: ${text}"}`));
    const args = validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/login.json' });
    const result = await executeCapturePlan(args, { provider, env: {}, secrets });
    expect(result.result).toBe('failed');
    expect(result.error).toBe(`secret APP_PASSWORD found in evidence/login.json (${encoding}); the capture failed closed and nothing was written`);
    expect(JSON.stringify(result)).not.toContain(VALUE);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test.each(forms)('a %s value in a deflated ZIP entry fails closed, naming the entry', async (encoding, text) => {
    const zip = await zipWith({ 'trace.trace': '{"type":"before"}\n', 'trace.network': `{"postData":"password=${text}"}\n` });
    const provider = new FakeProvider(leaking(zip));
    const args = validArgs(fx.root, { type: 'interaction trace', artifact_path: 'evidence/login.trace.zip' });
    const result = await executeCapturePlan(args, { provider, env: {}, secrets });
    expect(result.error).toBe(
      `secret APP_PASSWORD found in evidence/login.trace.zip, ZIP entry trace.network (${encoding}); the capture failed closed and nothing was written`,
    );
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('a screenshot sidecar holding a value fails closed and neither file is written', async () => {
    const provider = new FakeProvider(writes(undefined, { page_facts: { finalUrl: `http://127.0.0.1/?p=${encodeURIComponent(VALUE)}` } as any }));
    const result = await executeCapturePlan(validArgs(fx.root), { provider, env: {}, secrets });
    expect(result.result).toBe('failed');
    expect(result.error).toContain('secret APP_PASSWORD found in evidence/shot.probe.json (URL-encoded)');
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test("a provider's error or warning quoting a value shows the name instead", async () => {
    const provider = new FakeProvider(() => ({ result: 'failed', error: `Malformed value for input of type "email": '${VALUE}'`, warnings: [`saw ${VALUE}`] }));
    const result = await executeCapturePlan(validArgs(fx.root), { provider, env: {}, secrets });
    expect(result.error).toBe(`Malformed value for input of type "email": '<secret APP_PASSWORD>'`);
    expect(JSON.stringify(result)).not.toContain(VALUE);
  });

  test('without secrets the guard does not look', async () => {
    const provider = new FakeProvider(leaking(`{"format":"aria_snapshot","tree":"${VALUE}"}`));
    const result = await executeCapturePlan(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/a.json' }), { provider, env: {} });
    expect(result.result).toBe('captured');
  });

  test('zipEntries reads what jszip writes; an unreadable ZIP fails closed', async () => {
    const zip = await zipWith({ a: 'one', 'dir/b': Buffer.from('two') });
    expect(zipEntries(zip).map((e) => [e.name, e.bytes.toString()])).toEqual([
      ['a', 'one'],
      ['dir/', ''],
      ['dir/b', 'two'],
    ]);
    const torn = zip.subarray(0, zip.length - 30);
    expect(() => guardFile('t.zip', torn, secrets)).toThrow('t.zip could not be read entry by entry to look for the secrets');
    expect(fs.existsSync(fx.evidence)).toBe(true);
  });
});
