/**
 * compareEvidence (src/compare/run.ts), the comparison the CLI, the library
 * and the MCP tool share, on files made here: two artifacts of one kind, two
 * run roots and one run in rounds; where the output goes (compare.json, the
 * page, the images) and where it never goes; input that cannot be compared,
 * refused naming the file and the rule, with nothing written.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compareEvidence, exitStatusOf, RESULT_FILE, PAGE_FILE } from '../../src/compare/run';
import { compareResultSchema } from '../../src/compare/schema';
import { blank, fillRect, hex, pngOf } from './pixelFixtures';
import { variant } from '../manifest/lines';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compare-evidence-'));
  roots.push(dir);
  return dir;
}

const BUTTON = { x: 40, y: 30, w: 80, h: 24 };
/** A page-like PNG: white, a button of `colour`. */
const shot = (colour: string, height = 120) => pngOf(fillRect(blank(200, height), BUTTON.x, BUTTON.y, BUTTON.w, BUTTON.h, hex(colour)));
const aria = (items: string[]) =>
  JSON.stringify({ format: 'aria_snapshot', tree: `- main:\n  - list:\n${items.map((i) => `    - listitem: ${i}\n`).join('')}` }, null, 2);

/** A run root: plan.md, evidence/ files and a manifest line per [criterion, artifact, type]. */
function run(files: Record<string, Buffer | string>, lines: Array<[string, string, string]>): string {
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'plan.md'), '# run\n');
  fs.mkdirSync(path.join(root, 'evidence'));
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(root, 'evidence', name), bytes);
  const text = lines
    .map(([criterion, artifact, type], i) =>
      JSON.stringify(
        variant((l) => {
          l.criterion = criterion;
          l.artifact = artifact;
          l.capture.type = type;
          l.capture.artifact_path = `evidence/${artifact}`;
          l.ts = `2026-07-16T15:${String(i).padStart(2, '0')}:00+08:00`;
        }),
      ),
    )
    .join('\n');
  fs.writeFileSync(path.join(root, 'evidence', 'manifest.jsonl'), text + '\n');
  return root;
}

describe('two artifacts of one kind', () => {
  test('a one-palette-step colour change is found and located; the same bytes are unchanged', async () => {
    const dir = tempDir();
    for (const [name, colour] of [
      ['a.png', '#1565c0'],
      ['b.png', '#1976d2'],
      ['c.png', '#1565c0'],
    ])
      fs.writeFileSync(path.join(dir, name), shot(colour));
    const out = path.join(dir, 'out');
    const changed = await compareEvidence({ artifacts: [path.join(dir, 'a.png'), path.join(dir, 'b.png')] }, { out });
    expect(changed.status).toBe('changed');
    expect(exitStatusOf(changed)).toBe(1);
    const item = changed.items[0];
    expect(item.kind).toBe('screenshot');
    expect(item.pixels!.changedPixels).toBe(BUTTON.w * BUTTON.h);
    expect(item.pixels!.regions).toEqual([expect.objectContaining({ x: BUTTON.x, y: BUTTON.y, width: BUTTON.w, height: BUTTON.h })]);
    expect(item.notes.join(' ')).toContain('no probe sidecar');
    // compare.json is the result, valid under its schema; the page and the images are beside it.
    const written = JSON.parse(fs.readFileSync(path.join(out, RESULT_FILE), 'utf8'));
    expect(compareResultSchema.parse(written).items[0].images!.diff).toMatch(/^images\/.*-diff\.png$/);
    expect(fs.existsSync(path.join(out, written.items[0].images.diff))).toBe(true);
    expect(written.items[0].images.tiles).toHaveLength(1);
    const page = fs.readFileSync(path.join(out, PAGE_FILE), 'utf8');
    expect(page).toContain('Content-Security-Policy');
    expect(page).toContain('class="slider"');

    const same = await compareEvidence({ artifacts: [path.join(dir, 'a.png'), path.join(dir, 'c.png')] }, { write: false });
    expect(same.status).toBe('unchanged');
    expect(same.items[0].pixels!.identicalBytes).toBe(true);
    expect(exitStatusOf(same)).toBe(0);
  });

  test('an a11y tree: a new list item, structurally', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.json'), aria(['Apples', 'Pears']));
    fs.writeFileSync(path.join(dir, 'b.json'), aria(['Apples', 'Pears', 'Plums']));
    const result = await compareEvidence({ artifacts: [path.join(dir, 'a.json'), path.join(dir, 'b.json')] }, { write: false });
    expect(result.items[0].status).toBe('changed');
    expect(result.items[0].summary).toEqual([expect.stringContaining('Plums')]);
    expect((result.items[0].aria as { counts: { added: number } }).counts.added).toBe(1);
  });
});

describe('runs and rounds', () => {
  test('two run roots: pairs compared, new and gone listed, the output under the second run', async () => {
    const before = run({ 'L6.1.png': shot('#1565c0'), 'L6.2.json': aria(['A']), 'L6.3.png': shot('#000000') }, [
      ['L6.1', 'L6.1.png', 'screenshot'],
      ['L6.2', 'L6.2.json', 'a11y tree'],
      ['L6.3', 'L6.3.png', 'screenshot'],
    ]);
    const after = run({ 'L6.1.png': shot('#1565c0'), 'L6.2.json': aria(['A', 'B']), 'L6.4.png': shot('#ffffff') }, [
      ['L6.1', 'L6.1.png', 'screenshot'],
      ['L6.2', 'L6.2.json', 'a11y tree'],
      ['L6.4', 'L6.4.png', 'screenshot'],
    ]);
    const result = await compareEvidence({ runs: [before, after] });
    expect(result.summary).toEqual({ compared: 2, unchanged: 1, changed: 1, new: 1, gone: 1, notComparable: 0 });
    expect(result.items.map((i) => [i.criterion, i.status])).toEqual([
      ['L6.1', 'unchanged'],
      ['L6.2', 'changed'],
    ]);
    expect(result.out).toBe(path.join(after, 'compare'));
    expect(fs.existsSync(path.join(after, 'compare', RESULT_FILE))).toBe(true);
    // Nothing under either run's evidence/ but what was there.
    expect(fs.readdirSync(path.join(after, 'evidence')).sort()).toEqual(['L6.1.png', 'L6.2.json', 'L6.4.png', 'manifest.jsonl']);
  });

  test('rounds: -r1 against -r2, a recapture in place listed as overwritten', async () => {
    const root = run({ 'L6.1-empty-r1.png': shot('#1565c0'), 'L6.1-empty-r2.png': shot('#d32f2f'), 'L6.2.json': aria(['A']) }, [
      ['L6.1', 'L6.1-empty-r1.png', 'screenshot'],
      ['L6.2', 'L6.2.json', 'a11y tree'],
      ['L6.1', 'L6.1-empty-r2.png', 'screenshot'],
      ['L6.2', 'L6.2.json', 'a11y tree'],
    ]);
    const result = await compareEvidence({ rounds: root });
    expect(result.items.map((i) => [i.before.artifact, i.after.artifact, i.status])).toEqual([['L6.1-empty-r1.png', 'L6.1-empty-r2.png', 'changed']]);
    expect(result.notComparable.map((u) => u.reason)).toEqual([expect.stringMatching(/^overwritten: /)]);
  });
});

describe('input that cannot be compared: an error naming the file and the rule, and nothing written', () => {
  async function refused(input: Parameters<typeof compareEvidence>[0], out: string, message: RegExp | string): Promise<void> {
    await expect(compareEvidence(input, { out })).rejects.toThrow(message);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(path.dirname(out)).filter((n) => n.includes('staging'))).toEqual([]);
  }

  test('types that differ', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.png'), shot('#000000'));
    fs.writeFileSync(path.join(dir, 'b.json'), aria(['A']));
    await refused(
      { artifacts: [path.join(dir, 'a.png'), path.join(dir, 'b.json')] },
      path.join(dir, 'out'),
      `${path.join(dir, 'a.png')} is a screenshot and ${path.join(dir, 'b.json')} is an a11y tree: compare two artifacts of one kind`,
    );
  });

  test('a missing file, and a corrupt PNG', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.png'), shot('#000000'));
    const corrupt = Buffer.from(shot('#ffffff'));
    corrupt[corrupt.length - 20] ^= 0xff;
    fs.writeFileSync(path.join(dir, 'b.png'), corrupt);
    await refused({ artifacts: [path.join(dir, 'a.png'), path.join(dir, 'nope.png')] }, path.join(dir, 'out'), `${path.join(dir, 'nope.png')}: no such file`);
    await refused(
      { artifacts: [path.join(dir, 'a.png'), path.join(dir, 'b.png')] },
      path.join(dir, 'out'),
      new RegExp(`^${path.join(dir, 'b.png')}: not a readable PNG`),
    );
  });

  test('not a run root, and a manifest line whose file is not there', async () => {
    const dir = tempDir();
    await refused({ rounds: dir }, path.join(dir, 'out'), `${dir} is not a run root: it holds no evidence/manifest.jsonl`);
    const root = run({ 'a.png': shot('#000000') }, [
      ['L6.1', 'a.png', 'screenshot'],
      ['L6.1', 'gone.png', 'screenshot'],
    ]);
    await refused(
      { rounds: root },
      path.join(root, 'compare'),
      `${path.join(root, 'evidence', 'gone.png')} is not there (line 2 names it); recapture it, or remove the line from the manifest`,
    );
  });

  test('an output folder under evidence/, and one that is not a comparison', async () => {
    const root = run({ 'a.png': shot('#000000'), 'b.png': shot('#111111') }, []);
    const [a, b] = [path.join(root, 'evidence', 'a.png'), path.join(root, 'evidence', 'b.png')];
    await refused({ artifacts: [a, b] }, path.join(root, 'evidence', 'cmp'), /is under .*evidence, which holds captures only/);
    const other = path.join(root, 'notes');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'todo.txt'), 'keep me');
    await expect(compareEvidence({ artifacts: [a, b] }, { out: other })).rejects.toThrow(`${other} holds files that are not a comparison's`);
    expect(fs.readdirSync(other)).toEqual(['todo.txt']);
    // Two artifacts in a run default to <run root>/compare/.
    expect((await compareEvidence({ artifacts: [a, b] })).out).toBe(path.join(fs.realpathSync(root), 'compare'));
  });
});
