/**
 * `design-playbook-evidence demo` (`npm run demo`): serves the shipped demo
 * page from 127.0.0.1, captures it into a demo run folder (./demo-run by
 * default, marked with plan.md) through the same boundary as the MCP tool,
 * and prints where each file landed. Acting as the orchestrator, it then
 * writes the run's manifest.jsonl (one line per capture, criteria L6.1-L6.4)
 * and builds the run report.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import type { AddressInfo } from 'net';
import { pathToFileURL } from 'url';
import { captureFiles, findCaptureType } from '../contract/captureTypes';
import type { Program } from './program';
import type { CaptureResult } from '../contract/result';
import { manifestLine } from '../manifest/line';
import { READING_ORDER } from '../probe/face';
import { buildReport } from '../report';
import { flagHelp, flagSpec, parseFlags, single, BROWSER_FLAGS_HELP } from './args';
import { flagsOf } from './flags';

export const DEMO_USAGE = `Usage: design-playbook-evidence demo [--out DIR] [--file]

Captures the demo page shipped with the package into a demo run folder and
prints where the files are: two screenshots (each with its .probe.json
sidecar, bound to the page's declared design tokens), an aria snapshot and a
Playwright trace of filling in the form. Then, as an orchestrator would, it
writes evidence/manifest.jsonl binding each capture to a criterion, and
builds the run report (report/index.html).

${flagHelp(flagsOf('demo', { browser: false }))}
${BROWSER_FLAGS_HELP}`;

/** The design tokens the demo page declares in its style sheet. */
export const DEMO_DESIGN = {
  fontSizes: [14, 16, 20, 24],
  colors: ['#f5f5f5', '#ffffff', '#1a1a1a', '#0b6bcb', '#5c5c5c'],
  radii: [4, 8, 12],
};

const SUBSCRIBE_ACTIONS = [
  { do: 'fill', selector: '#email', value: 'reviewer@example.com' },
  { do: 'select_option', selector: '#topic', label: 'Interface changes' },
  { do: 'click', selector: '#subscribe' },
  { do: 'wait_for_state', state: 'submitted' },
];

/** The package's demo/ folder, found from this file (src/ under ts-jest, dist/src/ when built). */
export function demoDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'demo');
    if (fs.existsSync(path.join(candidate, 'index.html')) && fs.existsSync(path.join(dir, 'package.json'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error(`the demo page was not found next to ${__dirname} (expected <package>/demo/index.html)`);
}

async function serveDemo(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const page = fs.readFileSync(path.join(dir, 'index.html'));
  const server = http.createServer((req, res) => {
    if ((req.url || '/').split('?')[0] === '/' || req.url === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

export function ensureRunFolder(root: string): void {
  fs.mkdirSync(path.join(root, 'evidence'), { recursive: true });
  const marker = path.join(root, 'plan.md');
  if (!fs.existsSync(marker)) {
    fs.writeFileSync(
      marker,
      '# Demo run\n\nCreated by `design-playbook-evidence demo`. This file marks the folder as a run root;\nthe evidence lands in `evidence/`.\n',
    );
  }
}

export interface DemoCapture {
  label: string;
  /** The criterion the demo's manifest binds this capture to. */
  criterion: string;
  args: Record<string, unknown>;
}

export function demoCaptures(url: string, runRoot: string): DemoCapture[] {
  const base = { schemaVersion: 1, url, run_root: runRoot, overwrite: true };
  const light = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
  const dark = { width: 800, height: 600, devicePixelRatio: 2, colorScheme: 'dark' };
  return [
    {
      label: 'screenshot, idle (light, bound to the declared tokens)',
      criterion: 'L6.1',
      args: { ...base, type: 'screenshot', state: 'idle', artifact_path: 'evidence/demo-idle.png', viewport: light, design: DEMO_DESIGN },
    },
    {
      label: 'screenshot after subscribing (dark, 2x)',
      criterion: 'L6.2',
      args: {
        ...base,
        type: 'screenshot',
        state: 'submitted',
        actions: SUBSCRIBE_ACTIONS,
        artifact_path: 'evidence/demo-submitted-dark.png',
        viewport: dark,
        design: DEMO_DESIGN,
      },
    },
    {
      label: 'aria snapshot after subscribing',
      criterion: 'L6.3',
      args: { ...base, type: 'a11y tree', state: 'submitted', actions: SUBSCRIBE_ACTIONS, artifact_path: 'evidence/demo-submitted.a11y.json', viewport: light },
    },
    {
      label: 'interaction trace of subscribing',
      criterion: 'L6.4',
      args: {
        ...base,
        type: 'interaction trace',
        state: 'submitted',
        actions: SUBSCRIBE_ACTIONS,
        artifact_path: 'evidence/demo-submitted.trace.zip',
        viewport: light,
      },
    },
  ];
}

/** The manifest line an orchestrator appends after a capture (see docs/manifest.md). */
export function demoManifestLine(capture: DemoCapture, result: CaptureResult, ts: Date): string {
  return manifestLine(capture.criterion, capture.args, result, ts);
}

export async function runDemo(argv: string[], program: Program): Promise<number> {
  const flags = parseFlags(argv, flagSpec('demo'));
  if (flags.switches.has('help')) {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const runRoot = path.resolve(single(flags, 'out') ?? 'demo-run');
  ensureRunFolder(runRoot);
  const dir = demoDir();
  const server = flags.switches.has('file') ? null : await serveDemo(dir);
  const url = server ? server.url : pathToFileURL(path.join(dir, 'index.html')).href;
  const out = process.stdout;
  out.write(`demo page: ${url}\nrun folder: ${runRoot}\n\n`);
  let failures = 0;
  const manifestLines: string[] = [];
  try {
    for (const capture of demoCaptures(url, runRoot)) {
      const started = Date.now();
      let result: CaptureResult;
      try {
        result = await program.executeCapturePlan(capture.args);
        manifestLines.push(demoManifestLine(capture, result, new Date()));
      } catch (err) {
        failures++;
        out.write(`✗ ${capture.label}: ${(err as Error).message}\n`);
        continue;
      }
      const ms = Date.now() - started;
      if (result.result !== 'captured') {
        failures++;
        out.write(`✗ ${capture.label}: ${result.error}\n`);
        continue;
      }
      out.write(`✓ ${capture.label} — observed_state ${result.observed_state}, ${ms} ms\n  ${result.written_path}\n`);
      // The sidecars its type writes beside the artifact (a screenshot's probe sidecar).
      const spec = findCaptureType(String(capture.args.type));
      for (const file of spec ? captureFiles(spec, result.written_path).slice(1) : []) out.write(`  ${file.path}\n`);
      for (const warning of result.warnings) out.write(`  warning: ${warning}\n`);
    }
  } finally {
    await program.close();
    await server?.close();
  }
  // The demo's own run folder: its manifest is rewritten with this run's lines.
  fs.writeFileSync(path.join(runRoot, 'evidence', 'manifest.jsonl'), manifestLines.map((line) => line + '\n').join(''));
  try {
    const report = await buildReport({ runRoot });
    out.write(`\nmanifest: ${path.join(runRoot, 'evidence', 'manifest.jsonl')}\nreport: ${report.indexPath}\n`);
  } catch (err) {
    failures++;
    out.write(`\n✗ report: ${(err as Error).message}\n`);
  }
  out.write(
    failures
      ? `\n${failures} capture(s) failed; run \`design-playbook-evidence doctor\` to check the browser.\n`
      : `\nIn a sidecar read ${READING_ORDER}\n` + 'Open the trace ZIP at https://trace.playwright.dev or with `npx playwright show-trace`.\n',
  );
  return failures ? 1 : 0;
}
