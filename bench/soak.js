#!/usr/bin/env node
/**
 * Memory over time: N sequential captures (screenshot, a11y tree,
 * interaction trace in turn, each with a click and a state wait) through the
 * built server, spoken to with the MCP SDK client. After every capture the
 * server's process tree (server + browser) is read from /proc; the growth is
 * the median PSS of the last tenth minus that of the first tenth after the
 * warm-up (the first 30 captures). Also prints the RSS sum and the number of
 * processes, which would show a leaked renderer.
 *
 *   node bench/soak.js [captures=300] [--bin dist/src/bin.js]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { treeMemory } = require('./lib/procMemory');

const argv = process.argv.slice(2);
let total = 300;
let bin = path.join(__dirname, '..', 'dist', 'src', 'bin.js');
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--bin') bin = path.resolve(argv[++i]);
  else total = Number(argv[i]);
}
const WARM_UP = Math.min(30, Math.floor(total / 5));
const TYPES = [
  ['screenshot', '.png'],
  ['a11y tree', '.json'],
  ['interaction trace', '.trace.zip'],
];
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>body{font:16px system-ui;margin:24px}.card{border-radius:8px;background:#eef;padding:12px;margin:8px 0}</style></head>
<body data-state="idle"><h1>Soak</h1><button id="go" onclick="document.body.dataset.state='done'">Go</button>
${Array.from({ length: 30 }, (_, i) => `<div class="card"><h2>Card ${i}</h2><p>Text ${i} <a href="#${i}">link</a></p><input aria-label="field ${i}"></div>`).join('')}
<img src="/pixel.png" alt="pixel"></body></html>`;
const PIXEL = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cf000003010100c9fe92ef0000000049454e44ae426082',
  'hex',
);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

(async () => {
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/pixel.png')) {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(PIXEL);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-soak-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# soak\n');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_CHROME_PATH: process.env.DESIGN_PLAYBOOK_CHROME_PATH || '/usr/bin/chromium' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-soak', version: '1' });
  await client.connect(transport);
  const samples = [];
  let failed = 0;
  const started = Date.now();
  try {
    for (let i = 0; i < total; i++) {
      const [type, ext] = TYPES[i % TYPES.length];
      const result = await client.callTool(
        {
          name: 'execute_capture_plan',
          arguments: {
            schemaVersion: 1,
            url: `${origin}/?n=${i}`,
            type,
            state: 'done',
            artifact_path: `evidence/soak-${i % 6}${ext}`,
            overwrite: true,
            run_root: runRoot,
            viewport: { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' },
            actions: [
              { do: 'click', selector: '#go' },
              { do: 'wait_for_state', state: 'done' },
            ],
          },
        },
        undefined,
        { timeout: 300_000 },
      );
      if (result.structuredContent?.result !== 'captured') failed++;
      const mem = treeMemory(transport.pid);
      samples.push(mem);
      if ((i + 1) % 30 === 0) console.log(`${i + 1}/${total}: PSS ${mem.pssMb.toFixed(0)} MB, RSS ${mem.rssMb.toFixed(0)} MB, ${mem.processes} processes`);
    }
  } finally {
    await client.close();
    server.close();
    fs.rmSync(runRoot, { recursive: true, force: true });
  }
  const after = samples.slice(WARM_UP);
  const tenth = Math.max(1, Math.floor(after.length / 10));
  const first = after.slice(0, tenth);
  const last = after.slice(-tenth);
  const growth = (key) => median(last.map((s) => s[key])) - median(first.map((s) => s[key]));
  console.log(
    `${total} captures (${failed} failed) in ${((Date.now() - started) / 1000).toFixed(0)} s; after ${WARM_UP} warm-up captures: ` +
      `PSS growth ${growth('pssMb').toFixed(1)} MB, RSS-sum growth ${growth('rssMb').toFixed(1)} MB, processes ${first[0]?.processes} -> ${last[last.length - 1]?.processes}`,
  );
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
