/**
 * Builds a realistic run for the report tests with the BUILT server spoken
 * to by the MCP SDK client: bound and unbound screenshots (one with findings
 * of every rule, at devicePixelRatio 2), an aria snapshot, a trace whose page
 * logs an error and loses requests, and a failed capture. The test then acts
 * as the orchestrator: it writes the manifest (a superseded line, a manual
 * provider's line, a dangling line, flagged lines) and drops an unbound file.
 */
import * as fs from 'fs';
import * as path from 'path';
import { servePages, type PageServer } from '../helpers/browser';
import { captureArgs, closedPort, makeRunRoot, startServer, type Payload, type RunningServer } from '../e2e/harness';

export const REPORT_PAGES = path.join(__dirname, 'pages');
export const CARD_DESIGN = { fontSizes: [14, 20], colors: ['#ffffff', '#222222', '#0b6bcb'], radii: [8] };

export interface GeneratedRun {
  root: string;
  evidence: string;
  payloads: Record<string, Payload>;
  pages: PageServer;
  server: RunningServer;
}

export async function startRunServices(): Promise<{ pages: PageServer; server: RunningServer }> {
  const pages = await servePages(REPORT_PAGES, {
    '/missing-resource': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    },
    '/dropped-connection': (req) => {
      req.socket.destroy();
    },
  });
  const server = await startServer();
  return { pages, server };
}

function line(fields: Record<string, unknown>): string {
  return JSON.stringify(fields);
}

function requestOf(payload: Payload): Record<string, unknown> {
  return payload.request as Record<string, unknown>;
}

export async function generateRun(pages: PageServer, server: RunningServer): Promise<GeneratedRun> {
  const root = makeRunRoot('report');
  const evidence = path.join(root, 'evidence');
  const capture = async (leaf: string, extra: Record<string, unknown>) => {
    const payload = await server.capture(captureArgs(root, pages.url('/plain.html'), leaf, extra));
    return payload;
  };
  const payloads: Record<string, Payload> = {};
  payloads.findings = await capture('findings.png', {
    url: pages.url('/card.html'),
    viewport: { width: 640, height: 480, devicePixelRatio: 2, colorScheme: 'light' },
    design: CARD_DESIGN,
  });
  payloads.plain = await capture('plain.png', { design: CARD_DESIGN, state: 'loaded' });
  payloads.stray = await capture('stray.png', {});
  payloads.tree = await capture('tree.json', { type: 'a11y tree', url: pages.url('/flow.html'), state: 'idle' });
  payloads.trace = await capture('flow.trace.zip', {
    type: 'interaction trace',
    url: pages.url('/flow.html'),
    state: 'done',
    actions: [
      { do: 'fill', selector: '#name', value: 'Ada' },
      { do: 'click', selector: '#go' },
      { do: 'wait_for_state', state: 'done' },
    ],
  });
  const port = await closedPort();
  payloads.failed = await capture('unreachable.png', { url: `http://127.0.0.1:${port}/` });
  for (const [name, payload] of Object.entries(payloads)) {
    const expected = name === 'failed' ? 'failed' : 'captured';
    if (payload.result !== expected) throw new Error(`${name}: expected ${expected}, got ${payload.result}: ${payload.error}`);
  }

  // A manual provider's screenshot: a person saved a PNG (no sidecar).
  fs.copyFileSync(path.join(evidence, 'plain.png'), path.join(evidence, 'manual-shot.png'));
  // A file no line binds.
  fs.writeFileSync(path.join(evidence, 'notes.txt'), 'reviewer notes, not bound to any criterion\n');

  const entry = (criterion: string, payload: Payload, type: string, state: string, ts: string, extra: Record<string, unknown> = {}) =>
    line({
      criterion,
      artifact: payload.artifact.replace(/^evidence\//, ''),
      observed_state: payload.observed_state,
      result: payload.result,
      ts,
      capture: { provider: 'design-playbook-evidence', url: pages.url('/x'), type, state, actions: [], artifact_path: payload.artifact },
      request: requestOf(payload),
      ...extra,
    });
  const lines = [
    // Superseded by the next line for the same criterion and artifact (later ts).
    entry('L6.1', { ...payloads.findings, observed_state: 'an-older-state' }, 'screenshot', 'ready', '2026-07-16T09:00:00Z'),
    entry('L6.1', payloads.findings, 'screenshot', 'ready', '2026-07-16T10:00:00Z'),
    entry('L6.2', payloads.plain, 'screenshot', 'loaded', '2026-07-16T10:01:00Z'),
    entry('L6.3', payloads.tree, 'a11y tree', 'idle', '2026-07-16T10:02:00Z'),
    entry('L6.4', payloads.trace, 'interaction trace', 'done', '2026-07-16T10:03:00Z'),
    entry('L6.5', payloads.failed, 'screenshot', 'ready', '2026-07-16T10:04:00Z', { error: payloads.failed.error }),
    line({
      criterion: 'L6.6',
      artifact: 'manual-shot.png',
      observed_state: 'ready',
      result: 'captured',
      ts: '2026-07-16T10:05:00Z',
      // A person's line: no url or artifact_path, free-text steps.
      capture: { provider: 'manual', type: 'screenshot', state: 'ready', actions: ['Opened the plain page', 'Saved a screenshot'], note: 'saved by hand' },
      request: requestOf(payloads.plain),
    }),
    // Dangling: names a file that is not there.
    line({
      criterion: 'L6.7',
      artifact: 'never-written.png',
      observed_state: 'ready',
      result: 'captured',
      ts: '2026-07-16T10:06:00Z',
      capture: {
        provider: 'design-playbook-evidence',
        url: pages.url('/plain.html'),
        type: 'screenshot',
        state: 'ready',
        artifact_path: 'evidence/never-written.png',
      },
      request: requestOf(payloads.plain),
    }),
    '',
    // Flagged: no request snapshot (missing_schema_version), naming the unbound stray.png.
    line({
      criterion: 'L6.8',
      artifact: 'stray.png',
      observed_state: 'ready',
      result: 'captured',
      ts: '2026-07-16T10:07:00Z',
      capture: { provider: 'design-playbook-evidence', url: pages.url('/plain.html'), type: 'screenshot', state: 'ready', artifact_path: 'evidence/stray.png' },
    }),
    '{"criterion": "L6.9", "artifact": ',
  ];
  fs.writeFileSync(path.join(evidence, 'manifest.jsonl'), lines.join('\n') + '\n');
  return { root, evidence, payloads, pages, server };
}
