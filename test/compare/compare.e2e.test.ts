/**
 * Evidence compared through the built program: captures made by the server
 * (over MCP, the SDK's own client) into a run root whose manifest the test
 * writes as the orchestrator does; then `design-playbook-evidence compare`
 * (exit status 0/1/2, what it writes and where), and the opt-in
 * `compare_evidence` tool — absent from tools/list unless the setting turns
 * it on, and when on, answering with a result valid under its outputSchema,
 * links to the diff images and before/after tiles.
 */
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { BIN, captureArgs, makeRunRoot, startServer, type RunningServer } from '../e2e/harness';
import { servePages, type PageServer } from '../helpers/browser';

jest.setTimeout(300_000);

let pages: PageServer;
let server: RunningServer;
let root: string;
let other: string;

const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' };

/** One manifest line as the orchestrator appends it after a capture. */
function manifestLine(
  criterion: string,
  payload: { artifact: string; observed_state: string; result: string; request?: unknown },
  type: string,
  minute: number,
): string {
  return JSON.stringify({
    criterion,
    artifact: payload.artifact.replace(/^evidence\//, ''),
    observed_state: payload.observed_state,
    result: payload.result,
    ts: `2026-12-04T10:${String(minute).padStart(2, '0')}:00Z`,
    capture: { provider: 'design-playbook-evidence', type, state: 'ready', artifact_path: payload.artifact },
    request: payload.request,
  });
}

async function capture(runRoot: string, leaf: string, change: string, type = 'screenshot') {
  return server.capture(captureArgs(runRoot, pages.url(`shop.html${change ? `?change=${change}` : ''}`), leaf, { type, viewport: VIEWPORT }));
}

beforeAll(async () => {
  pages = await servePages(path.join(__dirname, 'pages'));
  server = await startServer();
  // Round 1 and round 2 of one run: the buy button's colour changes, the list gains an item.
  root = makeRunRoot('compare-rounds');
  const lines: string[] = [];
  lines.push(manifestLine('L6.1', await capture(root, 'L6.1-shop-r1.png', ''), 'screenshot', 0));
  lines.push(manifestLine('L6.2', await capture(root, 'L6.2-a11y-tree-r1.json', '', 'a11y tree'), 'a11y tree', 1));
  lines.push(manifestLine('L6.1', await capture(root, 'L6.1-shop-r2.png', 'color'), 'screenshot', 2));
  lines.push(manifestLine('L6.2', await capture(root, 'L6.2-a11y-tree-r2.json', 'item', 'a11y tree'), 'a11y tree', 3));
  fs.writeFileSync(path.join(root, 'evidence', 'manifest.jsonl'), lines.join('\n') + '\n');
  // A second run of the unchanged page.
  other = makeRunRoot('compare-other');
  fs.writeFileSync(
    path.join(other, 'evidence', 'manifest.jsonl'),
    [
      manifestLine('L6.1', await capture(other, 'L6.1-shop.png', ''), 'screenshot', 0),
      manifestLine('L6.1', await capture(other, 'L6.1-shop-again.png', ''), 'screenshot', 1),
    ].join('\n') + '\n',
  );
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
});

const cli = (args: string[]) => spawnSync(process.execPath, [BIN, 'compare', ...args], { encoding: 'utf8', timeout: 120_000 });

describe('design-playbook-evidence compare', () => {
  test('rounds: exit 1, the changed element and style named, compare.json, images and the page under <run root>/compare/', () => {
    const run = cli(['--rounds', root]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^changed: 2 compared, 2 changed/);
    expect(run.stdout).toContain('button#buy');
    expect(run.stdout).toContain('background-color #1565c0 → #d32f2f');
    expect(run.stdout).toContain('Spoon');
    const out = path.join(root, 'compare');
    const result = JSON.parse(fs.readFileSync(path.join(out, 'compare.json'), 'utf8'));
    expect(result.items.map((i: { criterion: string; kind: string }) => [i.criterion, i.kind])).toEqual([
      ['L6.1', 'screenshot'],
      ['L6.2', 'a11y tree'],
    ]);
    expect(fs.existsSync(path.join(out, result.items[0].images.diff))).toBe(true);
    expect(fs.readFileSync(path.join(out, 'index.html'), 'utf8')).toContain('<h1>Comparison');
    expect(fs.readdirSync(path.join(root, 'evidence')).some((name) => name.includes('compare') || name.endsWith('diff.png'))).toBe(false);
  });

  test('two captures of an unchanged page: exit 0, nothing reported', () => {
    const run = cli(['--rounds', other, '--json']);
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.summary).toEqual({ compared: 1, unchanged: 1, changed: 0, new: 0, gone: 0, notComparable: 0 });
    expect(result.items[0].pixels.identicalBytes).toBe(true);
  });

  test('two run roots, and two artifacts with --out', () => {
    const runs = cli([other, root, '--out', path.join(other, 'cmp-runs')]);
    expect(runs.status).toBe(1);
    expect(runs.stdout).toContain('new: L6.2 a11y tree');
    const files = cli([
      path.join(root, 'evidence', 'L6.1-shop-r1.png'),
      path.join(root, 'evidence', 'L6.1-shop-r2.png'),
      '--out',
      path.join(other, 'cmp-files'),
      '--ignore-selector',
      '#buy',
    ]);
    // The only change is inside the ignored element's box.
    expect(files.status).toBe(0);
  });

  test('trouble: exit 2, the file and the rule on stderr, nothing written', () => {
    const out = path.join(other, 'cmp-bad');
    const mixed = cli([path.join(root, 'evidence', 'L6.1-shop-r1.png'), path.join(root, 'evidence', 'L6.2-a11y-tree-r1.json'), '--out', out]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain('is a screenshot and');
    expect(cli(['--rounds', path.join(root, 'evidence')]).stderr).toContain('is not a run root');
    expect(cli(['--rounds', root, '--threshold', '2']).status).toBe(2);
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('the compare_evidence tool', () => {
  test('off by default: tools/list is the original single tool, and the name is an unknown tool', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute_capture_plan']);
    const answer = await server.client.callTool({ name: 'compare_evidence', arguments: { run_root: root, rounds: true } });
    expect(answer.isError).toBe(true);
    expect(answer.content).toEqual([{ type: 'text', text: 'unknown tool: compare_evidence' }]);
  });

  test.each([
    ['DESIGN_PLAYBOOK_COMPARE_TOOL=1', { env: { DESIGN_PLAYBOOK_COMPARE_TOOL: '1' } }],
    ['--compare-tool', { args: ['--compare-tool'] }],
  ])('on with %s: listed with its outputSchema; its answer carries the result, links and tiles', async (_label, options) => {
    const on = await startServer(options);
    try {
      const { tools } = await on.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['execute_capture_plan', 'compare_evidence']);
      expect(tools[1].outputSchema).toBeDefined();
      // The SDK client checks structuredContent against the outputSchema it listed.
      const answer = await on.client.callTool({ name: 'compare_evidence', arguments: { run_root: root, rounds: true } });
      expect(answer.isError).toBe(false);
      const result = answer.structuredContent as { status: string; summary: { changed: number } };
      expect(result.status).toBe('changed');
      expect(result.summary.changed).toBe(2);
      const content = answer.content as Array<{ type: string; uri?: string; mimeType?: string; text?: string }>;
      expect(content[0].text).toContain('button#buy');
      expect(content.filter((c) => c.type === 'resource_link' && c.uri!.endsWith('-diff.png'))).toHaveLength(1);
      expect(content.filter((c) => c.type === 'image' && c.mimeType === 'image/png').length).toBeGreaterThanOrEqual(2);
      // Refusals name the field and the rule; the server keeps serving.
      const relative = await on.client.callTool({ name: 'compare_evidence', arguments: { run_root: 'relative/run', rounds: true } });
      expect(relative.isError).toBe(true);
      expect((relative.content as Array<{ text: string }>)[0].text).toMatch(/^run_root must be an absolute path/);
      const outside = await on.client.callTool({
        name: 'compare_evidence',
        arguments: { run_root: root, artifacts: ['../plan.md', 'evidence/L6.1-shop-r2.png'] },
      });
      expect((outside.content as Array<{ text: string }>)[0].text).toBe("artifacts[0] '../plan.md': must not contain '..' segments");
      const both = await on.client.callTool({ name: 'compare_evidence', arguments: { run_root: root } });
      expect((both.content as Array<{ text: string }>)[0].text).toContain('give exactly one of rounds: true, runs: [A, B] or artifacts: [a, b]');
      const { tools: again } = await on.client.listTools();
      expect(again).toHaveLength(2);
    } finally {
      await on.close();
    }
  });
});
