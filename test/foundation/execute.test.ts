/**
 * executeCapturePlan with a fake provider: manifest refusal, overwrite
 * refusal (before the provider), the commit that cannot clobber or escape,
 * failed captures that leave nothing, the screenshot sidecar and the trace
 * .zip rule.
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan, planCapture, performCapture, MANIFEST_REFUSAL, type CapturePlan } from '../../src/boundary';
import { sidecarLeaf } from '../../src/contract/captureTypes';
import { ToolInputError } from '../../src/common/errors';
import { captureResultSchema } from '../../src/contract/result';
import { FakeProvider, FAKE_PNG, FAKE_OBSERVED_STATE, writes, writesThenFails, writesThenThrows, claimsWithoutWriting, during } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, listFiles, partialFiles, snapshotTree, type RunFixture } from './fixtures';

let fx: RunFixture;
beforeEach(() => {
  fx = makeRunFixture();
});
afterEach(() => fx.cleanup());

async function run(args: Record<string, unknown>, provider = new FakeProvider()) {
  const result = await executeCapturePlan(args, { provider, env: {} });
  // Every payload, captured or failed, satisfies the advertised output schema.
  expect(captureResultSchema.safeParse(result).success).toBe(true);
  return { result, provider };
}

function existsMessage(abs: string): string {
  return `artifact already exists: ${abs} (pass overwrite=true to replace)`;
}

describe('a successful capture', () => {
  test.each([
    ['screenshot', 'evidence/L6.3-error.png', ['L6.3-error.png', 'L6.3-error.probe.json']],
    ['a11y tree', 'evidence/L6.3.json', ['L6.3.json']],
    ['interaction trace', 'evidence/L6.3.trace.zip', ['L6.3.trace.zip']],
  ])('%s writes exactly its artifact (and a screenshot its sidecar)', async (type, artifactPath, files) => {
    const { result, provider } = await run(validArgs(fx.root, { type, artifact_path: artifactPath, state: 'error' }));
    expect(result).toEqual({
      artifact: artifactPath,
      observed_state: FAKE_OBSERVED_STATE,
      result: 'captured',
      error: '',
      written_path: path.join(fx.evidence, path.basename(artifactPath)),
      request: {
        schemaVersion: 1,
        viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
        freeze: { enabled: true, waitFonts: true, networkIdle: false },
      },
      warnings: [],
    });
    expect(listFiles(fx.evidence).sort()).toEqual([...files].sort());
    expect(fs.readFileSync(result.written_path)).toEqual(FAKE_PNG);
    expect(provider.calls).toHaveLength(1);
    const { context } = provider.calls[0];
    expect(context.writtenPath).toBe(result.written_path);
    expect(context.runRoot).toBe(fx.root);
    expect(context.fields).toMatchObject({ type, artifactPath, state: 'error', overwrite: false, actions: [] });
  });

  test('artifact is the path as given, trimmed; folders are created', async () => {
    const { result } = await run(validArgs(fx.root, { artifact_path: '  evidence/deep/er/x.png  ' }));
    expect(result.artifact).toBe('evidence/deep/er/x.png');
    expect(result.written_path).toBe(path.join(fx.evidence, 'deep', 'er', 'x.png'));
    expect(fs.existsSync(path.join(fx.evidence, 'deep', 'er', 'x.probe.json'))).toBe(true);
  });

  test('evidence/ is created when missing', async () => {
    fs.rmSync(fx.evidence, { recursive: true });
    const { result } = await run(validArgs(fx.root));
    expect(result.result).toBe('captured');
    expect(fs.readFileSync(path.join(fx.evidence, 'shot.png'))).toEqual(FAKE_PNG);
  });

  test("observed_state is the provider's, trimmed; never the requested state; empty -> unknown", async () => {
    const provider = new FakeProvider(writes(FAKE_PNG, { observed_state: '  open  ' }));
    expect((await run(validArgs(fx.root, { state: 'closed' }), provider)).result.observed_state).toBe('open');
    provider.setBehaviour(writes(FAKE_PNG, { observed_state: '   ' }));
    expect((await run(validArgs(fx.root, { state: 'closed', artifact_path: 'evidence/b.png' }), provider)).result.observed_state).toBe('unknown');
    provider.setBehaviour(writes(FAKE_PNG, { observed_state: undefined }));
    expect((await run(validArgs(fx.root, { state: 'closed', artifact_path: 'evidence/c.png' }), provider)).result.observed_state).toBe('unknown');
  });

  test('provider warnings are passed through (strings only)', async () => {
    const provider = new FakeProvider(writes(FAKE_PNG, { warnings: ['slow fonts', 3 as unknown as string] }));
    const { result } = await run(validArgs(fx.root), provider);
    expect(result.warnings).toEqual(['slow fonts']);
  });

  test('an unbound call hands the provider no design key; a bound call hands it the declaration', async () => {
    const provider = new FakeProvider();
    await run(validArgs(fx.root), provider);
    expect('design' in provider.calls[0].args).toBe(false);
    expect(provider.calls[0].context.request.design).toBeUndefined();
    const design = { colors: ['#fff'] };
    const { result } = await run(validArgs(fx.root, { design, artifact_path: 'evidence/bound.png' }), provider);
    expect(provider.calls[1].args.design).toEqual(design);
    expect(result.request?.design).toEqual(design);
  });
});

describe('manifest.jsonl is never written', () => {
  test.each([
    'evidence/manifest.jsonl',
    'evidence/MANIFEST.JSONL',
    'evidence/Manifest.Jsonl',
    'evidence/sub/manifest.jsonl',
    'evidence/a/b/MaNiFeSt.JsOnL',
    'evidence\\sub\\MANIFEST.jsonl',
  ])('%s -> refused, provider never called, nothing written', async (artifactPath) => {
    const before = snapshotTree(fx.base);
    const { result, provider } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: artifactPath }));
    expect(result.result).toBe('failed');
    expect(result.error).toBe(MANIFEST_REFUSAL);
    expect(result.error).toContain('provider never writes manifest.jsonl');
    expect(provider.calls).toHaveLength(0);
    expect(snapshotTree(fx.base)).toEqual(before);
  });

  test.each(['screenshot', 'interaction trace'])('refused for type %s too', async (type) => {
    const { result, provider } = await run(validArgs(fx.root, { type, artifact_path: 'evidence/manifest.jsonl' }));
    expect(result.result).toBe('failed');
    expect(provider.calls).toHaveLength(0);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('a link inside evidence/ that names manifest.jsonl is refused too', async () => {
    fs.writeFileSync(path.join(fx.evidence, 'manifest.jsonl'), '{"criterion":"L1"}\n');
    fs.symlinkSync('manifest.jsonl', path.join(fx.evidence, 'alias.json'));
    const { result, provider } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/alias.json', overwrite: true }));
    expect(result.error).toBe(MANIFEST_REFUSAL);
    expect(provider.calls).toHaveLength(0);
    expect(fs.readFileSync(path.join(fx.evidence, 'manifest.jsonl'), 'utf8')).toBe('{"criterion":"L1"}\n');
  });

  test('the manifest refusal comes before the overwrite refusal, and the manifest keeps its bytes', async () => {
    fs.writeFileSync(path.join(fx.evidence, 'manifest.jsonl'), 'line\n');
    for (const overwrite of [false, true]) {
      const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/manifest.jsonl', overwrite }));
      expect(result.error).toBe(MANIFEST_REFUSAL);
      expect(result.written_path).toBe(path.join(fx.evidence, 'manifest.jsonl'));
    }
    expect(fs.readFileSync(path.join(fx.evidence, 'manifest.jsonl'), 'utf8')).toBe('line\n');
  });

  test('a screenshot sidecar name can never be manifest.jsonl', () => {
    for (const leaf of ['manifest.png', 'manifest.jsonl.png', 'manifest', 'Manifest.Jsonl.x']) {
      expect(sidecarLeaf(leaf).toLowerCase()).not.toBe('manifest.jsonl');
    }
  });
});

describe('overwrite', () => {
  test('refusal keeps the old bytes and happens before the provider is called', async () => {
    const target = path.join(fx.evidence, 'x.json');
    fs.writeFileSync(target, 'old');
    const { result, provider } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/x.json' }));
    expect(result).toMatchObject({ result: 'failed', error: existsMessage(target), written_path: target, observed_state: 'unknown' });
    expect(provider.calls).toHaveLength(0);
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('an existing link at the name also refuses (and is not followed)', async () => {
    fs.writeFileSync(path.join(fx.evidence, 'real.json'), 'real');
    fs.symlinkSync('real.json', path.join(fx.evidence, 'x.json'));
    const { result, provider } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/x.json' }));
    expect(result.result).toBe('failed');
    expect(result.error).toContain('artifact already exists: ');
    expect(provider.calls).toHaveLength(0);
    expect(fs.readFileSync(path.join(fx.evidence, 'real.json'), 'utf8')).toBe('real');
  });

  test('overwrite=true replaces the artifact and its sidecar', async () => {
    fs.writeFileSync(path.join(fx.evidence, 'shot.png'), 'old png');
    fs.writeFileSync(path.join(fx.evidence, 'shot.probe.json'), 'old sidecar');
    const { result } = await run(validArgs(fx.root, { overwrite: true }));
    expect(result.result).toBe('captured');
    expect(fs.readFileSync(path.join(fx.evidence, 'shot.png'))).toEqual(FAKE_PNG);
    expect(JSON.parse(fs.readFileSync(path.join(fx.evidence, 'shot.probe.json'), 'utf8'))).toHaveProperty('renderTokens');
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('an existing folder at the name is refused even with overwrite=true', async () => {
    fs.mkdirSync(path.join(fx.evidence, 'x.json'));
    const { result, provider } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/x.json', overwrite: true }));
    expect(result.result).toBe('failed');
    expect(provider.calls).toHaveLength(0);
  });

  test('a file appearing between the early check and the commit is not clobbered', async () => {
    const target = path.join(fx.evidence, 'race.png');
    const provider = new FakeProvider(during(() => fs.writeFileSync(target, 'the other actor')));
    const { result } = await run(validArgs(fx.root, { artifact_path: 'evidence/race.png' }), provider);
    expect(result).toMatchObject({ result: 'failed', error: existsMessage(target), observed_state: 'unknown' });
    expect(fs.readFileSync(target, 'utf8')).toBe('the other actor');
    expect(listFiles(fx.evidence)).toEqual(['race.png']);
  });

  test('two concurrent captures of one new name: exactly one lands, the other is refused, nothing mixed', async () => {
    const slow = (bytes: string) =>
      new FakeProvider(async (_a, context) => {
        await new Promise((r) => setTimeout(r, 20));
        context.writeArtifact(bytes);
        await new Promise((r) => setTimeout(r, 20));
        return { result: 'captured', observed_state: 'x', page_facts: undefined };
      });
    const args = validArgs(fx.root, { artifact_path: 'evidence/contended.png' });
    const [a, b] = await Promise.all([executeCapturePlan(args, { provider: slow('A'), env: {} }), executeCapturePlan(args, { provider: slow('B'), env: {} })]);
    const outcomes = [a, b].map((r) => r.result).sort();
    expect(outcomes).toEqual(['captured', 'failed']);
    const winner = a.result === 'captured' ? 'A' : 'B';
    const loser = a.result === 'captured' ? b : a;
    expect(loser.error).toContain('artifact already exists: ');
    expect(fs.readFileSync(path.join(fx.evidence, 'contended.png'), 'utf8')).toBe(winner);
    expect(listFiles(fx.evidence).sort()).toEqual(['contended.png', 'contended.probe.json']);
  });

  test('a sidecar appearing during the capture refuses the group and leaves no PNG behind', async () => {
    const sidecar = path.join(fx.evidence, 'race.probe.json');
    const provider = new FakeProvider(during(() => fs.writeFileSync(sidecar, 'theirs')));
    const { result } = await run(validArgs(fx.root, { artifact_path: 'evidence/race.png' }), provider);
    expect(result.result).toBe('failed');
    expect(result.error).toBe(existsMessage(sidecar));
    expect(listFiles(fx.evidence)).toEqual(['race.probe.json']);
    expect(fs.readFileSync(sidecar, 'utf8')).toBe('theirs');
  });
});

describe('a failed capture leaves neither the target nor a temporary file', () => {
  test.each([
    ['returns failed', writesThenFails('page did not load'), 'page did not load'],
    ['throws', writesThenThrows('browser crashed'), 'browser crashed'],
    ['returns failed without a message', () => ({ result: 'failed' as const }), 'capture failed without an error message'],
    ['returns nothing', () => undefined as never, 'capture failed without an error message'],
    [
      'throws a non-Error',
      () => {
        throw 'a string';
      },
      'a string',
    ],
  ])('provider %s', async (_n, behaviour, phrase) => {
    const { result } = await run(validArgs(fx.root, { artifact_path: 'evidence/sub/f.png' }), new FakeProvider(behaviour));
    expect(result).toMatchObject({ result: 'failed', observed_state: 'unknown', written_path: path.join(fx.evidence, 'sub', 'f.png') });
    expect(result.error).toContain(phrase);
    expect(listFiles(fx.evidence)).toEqual([]);
    expect(partialFiles(fx.base)).toEqual([]);
  });

  test('claiming captured without writing -> failed', async () => {
    const { result } = await run(validArgs(fx.root, { artifact_path: 'evidence/ghost.png' }), new FakeProvider(claimsWithoutWriting()));
    expect(result.result).toBe('failed');
    expect(result.error).toContain('is not a regular file');
    expect(result.observed_state).toBe('unknown');
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('claiming captured without writing while an old artifact exists (overwrite=true) -> failed, not the stale file', async () => {
    const target = path.join(fx.evidence, 'stale.json');
    fs.writeFileSync(target, 'yesterday');
    const { result } = await run(
      validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/stale.json', overwrite: true }),
      new FakeProvider(claimsWithoutWriting()),
    );
    expect(result.result).toBe('failed');
    expect(result.observed_state).toBe('unknown');
    expect(fs.readFileSync(target, 'utf8')).toBe('yesterday');
  });

  test('a provider that rewrites an existing writtenPath itself (overwrite=true) is captured', async () => {
    const target = path.join(fx.evidence, 'fresh.json');
    fs.writeFileSync(target, 'yesterday');
    const provider = new FakeProvider((_a, context) => {
      fs.writeFileSync(context.writtenPath, 'today');
      return { result: 'captured', observed_state: 'x' };
    });
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/fresh.json', overwrite: true }), provider);
    expect(result.result).toBe('captured');
    expect(fs.readFileSync(target, 'utf8')).toBe('today');
  });

  test('a provider that writes writtenPath itself is accepted (verified) and gets a sidecar', async () => {
    const provider = new FakeProvider((_a, context) => {
      fs.writeFileSync(context.writtenPath, FAKE_PNG);
      return { result: 'captured', observed_state: 'x' };
    });
    const { result } = await run(validArgs(fx.root), provider);
    expect(result.result).toBe('captured');
    expect(listFiles(fx.evidence).sort()).toEqual(['shot.png', 'shot.probe.json']);
  });

  test('a provider that plants a link at writtenPath pointing outside -> failed', async () => {
    fs.writeFileSync(path.join(fx.outside, 'elsewhere.png'), 'x');
    const provider = new FakeProvider((_a, context) => {
      fs.symlinkSync(path.join(fx.outside, 'elsewhere.png'), context.writtenPath);
      return { result: 'captured', observed_state: 'x' };
    });
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/a.json' }), provider);
    expect(result.result).toBe('failed');
    expect(fs.readFileSync(path.join(fx.outside, 'elsewhere.png'), 'utf8')).toBe('x');
  });
});

describe('how a provider stages its bytes', () => {
  test('staging twice: the last bytes win (not a false "already exists")', async () => {
    const provider = new FakeProvider((_a, context) => {
      context.writeArtifact('first attempt');
      context.writeArtifact('second attempt');
      return { result: 'captured', observed_state: 'x' };
    });
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/twice.json' }), provider);
    expect(result).toMatchObject({ result: 'captured', error: '' });
    expect(fs.readFileSync(path.join(fx.evidence, 'twice.json'), 'utf8')).toBe('second attempt');
    expect(partialFiles(fx.base)).toEqual([]);
  });

  test('staging after capture returned is refused and leaves no temporary file', async () => {
    let late: (() => void) | undefined;
    const provider = new FakeProvider((_a, context) => {
      late = () => context.writeArtifact('too late');
      return { result: 'failed', error: 'gave up' };
    });
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/late.json' }), provider);
    expect(result.result).toBe('failed');
    expect(() => late!()).toThrow();
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('a long multi-byte name that containment accepts can be written (the temporary name fits too)', async () => {
    const leaf = `${'证'.repeat(83)}.json`; // 254 bytes: within the 255-byte segment limit
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: `evidence/${leaf}` }));
    expect(result).toMatchObject({ result: 'captured', error: '' });
    expect(listFiles(fx.evidence)).toEqual([leaf]);
  });

  test('a long multi-byte screenshot name gets its PNG and sidecar', async () => {
    const leaf = `${'证'.repeat(75)}.png`; // 229 bytes; its sidecar name is 236
    const { result } = await run(validArgs(fx.root, { artifact_path: `evidence/${leaf}` }));
    expect(result).toMatchObject({ result: 'captured', error: '' });
    expect(listFiles(fx.evidence).sort()).toEqual([leaf, `${'证'.repeat(75)}.probe.json`].sort());
  });

  test('staging the sidecar fails (disk error): failed, and neither the PNG nor any temporary file is left', async () => {
    const nodeFs: typeof fs = require('fs'); // the module object itself: the namespace import is not spy-able
    const realOpen = nodeFs.openSync;
    const spy = jest.spyOn(nodeFs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      if (String(p).includes('.probe.json.') && String(p).endsWith('.partial')) {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      }
      return (realOpen as (...a: unknown[]) => number)(p, ...rest);
    }) as typeof fs.openSync);
    let result;
    try {
      ({ result } = await run(validArgs(fx.root, { artifact_path: 'evidence/full-disk.png' })));
    } finally {
      spy.mockRestore();
    }
    expect(result.result).toBe('failed');
    expect(result.error).toContain('ENOSPC');
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('a sidecar that cannot be written fails the capture and leaves neither the PNG nor a temporary file', async () => {
    const leaf = `${'x'.repeat(246)}.png`; // the PNG name fits in 255 bytes, its .probe.json sidecar does not
    const { result } = await run(validArgs(fx.root, { artifact_path: `evidence/${leaf}` }));
    expect(result.result).toBe('failed');
    expect(listFiles(fx.evidence)).toEqual([]);
    expect(partialFiles(fx.base)).toEqual([]);
  });
});

describe('a folder swapped for a link during the capture', () => {
  beforeEach(() => fs.mkdirSync(path.join(fx.evidence, 'sub')));

  test('swap before the provider stages its bytes: refused, nothing outside', async () => {
    const provider = new FakeProvider(
      during(() => {
        fs.renameSync(path.join(fx.evidence, 'sub'), path.join(fx.evidence, 'sub-aside'));
        fs.symlinkSync(fx.outside, path.join(fx.evidence, 'sub'));
      }),
    );
    const { result } = await run(validArgs(fx.root, { artifact_path: 'evidence/sub/x.png' }), provider);
    expect(result.result).toBe('failed');
    expect(result.error).toContain('artifact_path symlink escapes the evidence/ subtree');
    expect(fs.readdirSync(fx.outside)).toEqual([]);
    expect(partialFiles(fx.base)).toEqual([]);
  });

  test('swap after the provider staged its bytes: nothing outside, never reported captured at the link', async () => {
    const provider = new FakeProvider((_a, context) => {
      context.writeArtifact(FAKE_PNG);
      fs.renameSync(path.join(fx.evidence, 'sub'), path.join(fx.evidence, 'sub-aside'));
      fs.symlinkSync(fx.outside, path.join(fx.evidence, 'sub'));
      return { result: 'captured', observed_state: 'x' };
    });
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/sub/x.json' }), provider);
    expect(result.result).toBe('failed');
    expect(fs.readdirSync(fx.outside)).toEqual([]);
    expect(partialFiles(fx.base)).toEqual([]);
  });

  test('the target folder moved outside evidence/ after staging: refused, nothing lands outside', async () => {
    const provider = new FakeProvider((_a, context) => {
      context.writeArtifact(FAKE_PNG);
      fs.renameSync(path.join(fx.evidence, 'sub'), path.join(fx.outside, 'sub'));
      return { result: 'captured', observed_state: 'x' };
    });
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/sub/x.json' }), provider);
    expect(result.result).toBe('failed');
    expect(result.error).toContain('symlink escapes');
    expect(listFiles(fx.outside)).toEqual([]);
  });
});

describe('screenshot sidecar', () => {
  test('<stem>.probe.json beside the PNG; unmeasured face when the provider gives no render_tokens', async () => {
    const { result } = await run(validArgs(fx.root, { artifact_path: 'evidence/sub/L6.2-x.png' }));
    expect(result.result).toBe('captured');
    const sidecar = JSON.parse(fs.readFileSync(path.join(fx.evidence, 'sub', 'L6.2-x.probe.json'), 'utf8'));
    expect(sidecar.renderTokens.measurement_status).toBe('unmeasured');
    expect(sidecar.renderTokens.findings).toEqual([]);
    expect(sidecar.renderTokens.undecidable.length).toBeGreaterThan(0);
    expect('design' in sidecar).toBe(false);
  });

  test('a bound capture records the declaration in the sidecar', async () => {
    const design = { fontSizes: [14, 16], colors: ['#0b6bcb'] };
    await run(validArgs(fx.root, { design }));
    const sidecar = JSON.parse(fs.readFileSync(path.join(fx.evidence, 'shot.probe.json'), 'utf8'));
    expect(sidecar.design).toEqual(design);
    expect(sidecar.renderTokens.measurement_status).toBe('unmeasured');
  });

  test("the provider's render-token face is written as given", async () => {
    const face = { measurement_status: 'measured', measurement_error: '', findings: [], undecidable: [], distinctFontSizes: [16] };
    await run(validArgs(fx.root), new FakeProvider(writes(FAKE_PNG, { render_tokens: face })));
    const sidecar = JSON.parse(fs.readFileSync(path.join(fx.evidence, 'shot.probe.json'), 'utf8'));
    expect(sidecar.renderTokens).toEqual(face);
  });

  test('a malformed render-token face is not passed off as measured', async () => {
    const face = { measurement_status: 'measured', findings: 'none' };
    const { result } = await run(validArgs(fx.root), new FakeProvider(writes(FAKE_PNG, { render_tokens: face })));
    expect(result.result).toBe('captured');
    const sidecar = JSON.parse(fs.readFileSync(path.join(fx.evidence, 'shot.probe.json'), 'utf8'));
    expect(sidecar.renderTokens.measurement_status).not.toBe('measured');
  });

  test('a provider that reports no page facts still gets its PNG and sidecar (no crash, no stray temp file)', async () => {
    const provider = new FakeProvider((_a, context) => {
      context.writeArtifact(FAKE_PNG);
      return { result: 'captured', observed_state: 'ok' };
    });
    const { result } = await run(validArgs(fx.root), provider);
    expect(result.result).toBe('captured');
    expect(listFiles(fx.evidence).sort()).toEqual(['shot.png', 'shot.probe.json']);
  });

  test.each([
    ['x.png', 'x.probe.json'],
    ['L6.2-x.png', 'L6.2-x.probe.json'],
    ['x.PNG', 'x.probe.json'],
    ['noext', 'noext.probe.json'],
    ['a.b.png', 'a.b.probe.json'],
    ['.png', '.png.probe.json'],
  ])('sidecarLeaf(%s) = %s', (leaf, expected) => {
    expect(sidecarLeaf(leaf)).toBe(expected);
  });

  test('an existing sidecar refuses the capture without overwrite (provider not called, bytes kept)', async () => {
    const sidecar = path.join(fx.evidence, 'shot.probe.json');
    fs.writeFileSync(sidecar, 'old sidecar');
    const { result, provider } = await run(validArgs(fx.root));
    expect(result).toMatchObject({ result: 'failed', error: existsMessage(sidecar) });
    expect(provider.calls).toHaveLength(0);
    expect(fs.readFileSync(sidecar, 'utf8')).toBe('old sidecar');
    expect(listFiles(fx.evidence)).toEqual(['shot.probe.json']);
  });

  test('non-screenshot types write no sidecar and ignore an existing one', async () => {
    fs.writeFileSync(path.join(fx.evidence, 'a.probe.json'), 'unrelated');
    const { result } = await run(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/a.json' }));
    expect(result.result).toBe('captured');
    expect(listFiles(fx.evidence).sort()).toEqual(['a.json', 'a.probe.json']);
    expect(fs.readFileSync(path.join(fx.evidence, 'a.probe.json'), 'utf8')).toBe('unrelated');
  });
});

describe('interaction trace names', () => {
  test.each(['evidence/t.json', 'evidence/t.trace', 'evidence/t.zip.json', 'evidence/tzip'])('%s is refused before the provider', async (artifactPath) => {
    const { result, provider } = await run(validArgs(fx.root, { type: 'interaction trace', artifact_path: artifactPath }));
    expect(result.result).toBe('failed');
    expect(result.error).toContain('must end in .zip');
    expect(result.written_path).toBe(path.join(fx.evidence, path.basename(artifactPath)));
    expect(provider.calls).toHaveLength(0);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test.each(['evidence/t.zip', 'evidence/t.trace.ZIP', 'evidence/t.Zip'])('%s is accepted (any case)', async (artifactPath) => {
    const { result } = await run(validArgs(fx.root, { type: 'interaction trace', artifact_path: artifactPath }));
    expect(result.result).toBe('captured');
    expect(listFiles(fx.evidence)).toEqual([path.basename(artifactPath)]);
  });
  test('a link named .zip that resolves to another name is refused', async () => {
    fs.writeFileSync(path.join(fx.evidence, 'notes.txt'), 'keep');
    fs.symlinkSync('notes.txt', path.join(fx.evidence, 'link.zip'));
    const { result, provider } = await run(validArgs(fx.root, { type: 'interaction trace', artifact_path: 'evidence/link.zip', overwrite: true }));
    expect(result.result).toBe('failed');
    expect(result.error).toContain('must end in .zip');
    expect(provider.calls).toHaveLength(0);
    expect(fs.readFileSync(path.join(fx.evidence, 'notes.txt'), 'utf8')).toBe('keep');
  });
});

describe('screenshot sidecar names', () => {
  test('a leaf whose sidecar name would exceed 255 bytes is refused before the provider', async () => {
    const leaf = 'a'.repeat(250) + '.png'; // 254 bytes: the artifact fits, `<stem>.probe.json` does not
    const { result, provider } = await run(validArgs(fx.root, { type: 'screenshot', artifact_path: `evidence/${leaf}` }));
    expect(result.result).toBe('failed');
    expect(result.error).toContain('too long for its probe sidecar');
    expect(provider.calls).toHaveLength(0);
    expect(listFiles(fx.evidence)).toEqual([]);
  });
});

describe('plan, then perform', () => {
  test('planCapture checks in the order contract-facts gives: mending one step reveals the next', () => {
    fs.writeFileSync(path.join(fx.evidence, 'x.png'), 'earlier');
    const before = snapshotTree(fx.base);
    const broken = {
      ...validArgs(fx.root),
      criterion: 'L6.1',
      schemaVersion: 2,
      url: '',
      run_root: 'relative/run',
      type: 'interaction trace',
      artifact_path: 'evidence/../manifest.jsonl',
    };
    const steps: [mend: Record<string, unknown>, refusal: Record<string, unknown>][] = [
      [{}, { kind: 'input', message: expect.stringContaining('provider accepts Runtime Object fields only') }],
      [{ criterion: undefined }, { kind: 'failed', result: { written_path: '', error: expect.stringContaining('unsupported capture schemaVersion 2') } }],
      [{ schemaVersion: 1 }, { kind: 'input', message: expect.stringContaining('url must be a non-empty string') }],
      [{ url: 'http://127.0.0.1:9/' }, { kind: 'failed', result: { written_path: '', error: expect.stringContaining('run_root must be an absolute path') } }],
      [{ run_root: fx.root }, { kind: 'failed', result: { written_path: '', error: "artifact_path must not contain '..' segments" } }],
      [
        { artifact_path: 'evidence/manifest.jsonl' },
        { kind: 'failed', result: { written_path: path.join(fx.evidence, 'manifest.jsonl'), error: expect.stringContaining('must end in .zip') } },
      ],
      [{ type: 'screenshot' }, { kind: 'failed', result: { error: MANIFEST_REFUSAL } }],
      [{ artifact_path: 'evidence/x.png' }, { kind: 'failed', result: { error: existsMessage(path.join(fx.evidence, 'x.png')) } }],
      [{ overwrite: true }, { kind: 'plan' }],
    ];
    let args: Record<string, unknown> = broken;
    expect(planCapture('not an object', {})).toEqual({ kind: 'input', message: 'execute_capture_plan arguments must be a JSON object' });
    for (const [mend, refusal] of steps) {
      args = { ...args, ...mend };
      for (const [key, value] of Object.entries(mend)) if (value === undefined) delete args[key];
      expect(planCapture(args, {})).toMatchObject(refusal);
    }
    // No step wrote anything, the plan included.
    expect(snapshotTree(fx.base)).toEqual(before);
  });

  test('a plan says what will be written where; performing it writes exactly those files, and a failed capture none', async () => {
    const plan = planCapture(validArgs(fx.root, { artifact_path: ' evidence/sub/a.png ' }), {}) as CapturePlan;
    expect(plan).toMatchObject({
      kind: 'plan',
      runRoot: fx.root,
      fields: { artifactPath: 'evidence/sub/a.png', type: 'screenshot' },
      request: { schemaVersion: 1 },
    });
    expect(plan.target.path).toBe(path.join(fx.evidence, 'sub', 'a.png'));
    expect(plan.files.map((f) => [f.path, f.mimeType])).toEqual([
      [path.join(fx.evidence, 'sub', 'a.png'), 'image/png'],
      [path.join(fx.evidence, 'sub', 'a.probe.json'), 'application/json'],
    ]);
    expect(listFiles(fx.evidence)).toEqual([]);
    const failed = await performCapture(plan, new FakeProvider(writesThenFails()));
    expect(failed).toMatchObject({ result: { result: 'failed', written_path: plan.target.path }, written: [] });
    const done = await performCapture(plan, new FakeProvider());
    expect(done.result).toMatchObject({ result: 'captured', artifact: 'evidence/sub/a.png', written_path: plan.target.path });
    expect(done.written).toEqual(plan.files);
    expect(listFiles(fx.evidence).sort()).toEqual(['sub/a.png', 'sub/a.probe.json']);
    // The plan is not changed by performing it: the capture's warnings go to its result.
    const warned = await performCapture(plan, new FakeProvider(writes(FAKE_PNG, { warnings: ['from the provider'] })));
    expect(warned.result.result).toBe('failed'); // the artifact is there now and overwrite is off
    expect(plan.warnings).toEqual([]);
  });

  test('with skipExisting an artifact on disk is present (whatever overwrite says), with the files a capture would write', () => {
    fs.writeFileSync(path.join(fx.evidence, 'shot.png'), 'earlier');
    const present = planCapture(validArgs(fx.root), {}, { skipExisting: true });
    expect(present).toEqual({
      kind: 'present',
      skipped: { result: 'skipped', artifact: 'evidence/shot.png', written_path: path.join(fx.evidence, 'shot.png'), warnings: [] },
      files: [
        expect.objectContaining({ path: path.join(fx.evidence, 'shot.png') }),
        expect.objectContaining({ path: path.join(fx.evidence, 'shot.probe.json') }),
      ],
    });
    expect(planCapture(validArgs(fx.root), {})).toMatchObject({ kind: 'failed', result: { error: existsMessage(path.join(fx.evidence, 'shot.png')) } });
    // Every earlier check still comes first.
    expect(planCapture(validArgs(fx.root, { artifact_path: 'evidence/manifest.jsonl' }), {}, { skipExisting: true })).toMatchObject({ kind: 'failed' });
  });

  test('a refusal of the arguments is data from the plan step; the library entry keeps throwing ToolInputError for it', async () => {
    const provider = new FakeProvider();
    expect(() => planCapture(validArgs(fx.root, { criterion: 'L6.1' }), {})).not.toThrow();
    expect(planCapture(validArgs(fx.root, { url: 'ftp://x' }), {})).toEqual({ kind: 'input', message: expect.stringContaining('url must start with') });
    await expect(executeCapturePlan(validArgs(fx.root, { criterion: 'L6.1' }), { provider, env: {} })).rejects.toThrow(ToolInputError);
    await expect(executeCapturePlan(validArgs(fx.root, { actions: [{ do: 'drag' }] }), { provider, env: {} })).rejects.toThrow(
      "actions[0]: unsupported do='drag'",
    );
    expect(provider.calls).toHaveLength(0);
  });
});
