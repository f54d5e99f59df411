#!/usr/bin/env node
/**
 * Peak memory of a full-page screenshot of a tall page (1280 × 60,000 CSS px
 * at DPR 1 by default): the built server (dist/src/bin.js, spoken to with the
 * MCP SDK client) captures it while /proc is sampled for the server and every
 * process under it (the browser and its helpers). Before the capture the
 * server captures a small page once, so the browser is warm and the figure
 * is what the tall page adds on top of a running server.
 *
 * Prints the peak sum of PSS (the memory the process tree really holds;
 * shared pages split between their users) and of RSS (counts shared pages
 * once per process, so it overstates), the idle figures before, the time and
 * the PNG's size.
 *
 *   node bench/tall-page.js [height=60000] [--bin other/dist/src/bin.js]... [--dpr 1] [--json OUT.json]
 *
 * Several --bin values (e.g. a build of an older commit) are measured one
 * after the other in the same run, and their PNGs compared pixel for pixel.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { peakSampler, treeMemory } = require('./lib/procMemory');
const { decodePng } = require('../dist/src/png/decode.js');
const benchResults = require('./lib/results');

const argv = process.argv.slice(2);
const bins = [];
let height = 60000;
let dpr = 1;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--bin') bins.push(path.resolve(argv[++i]));
  else if (argv[i] === '--dpr') dpr = Number(argv[++i]);
  else if (argv[i] === '--json')
    i++; // read by benchResults.jsonOutPath
  else height = Number(argv[i]);
}
if (!bins.length) bins.push(path.join(__dirname, '..', 'dist', 'src', 'bin.js'));
const CHROMIUM = process.env.DESIGN_PLAYBOOK_CHROME_PATH || '/usr/bin/chromium';

/** Rows of text and gradients, 100 px each, so the PNG is not trivially small. */
function tallPage(h) {
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font:16px sans-serif} header{position:fixed;top:0;left:0;right:0;height:40px;background:#036;color:#fff}
.row{height:97px;border-bottom:3px solid #333;background:linear-gradient(90deg,#fff,#88f);padding-left:24px}
</style></head><body data-state="tall"><header>fixed header</header><main id="rows"></main><script>
let html='';for(let i=0;i<${Math.ceil(h / 100)};i++) html+='<div class="row">row '+i+' — some text <b>bold</b> <i>italic</i></div>';
document.getElementById('rows').innerHTML=html;</script></body></html>`;
}
const SMALL = '<!doctype html><body data-state="small"><h1>warm-up</h1></body>';

async function measure(bin, origin, runRoot, label) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM, DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '600000' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-tall-page', version: '1' });
  await client.connect(transport);
  const pid = transport.pid;
  const call = (url, leaf) =>
    client.callTool(
      {
        name: 'execute_capture_plan',
        arguments: {
          schemaVersion: 1,
          url,
          type: 'screenshot',
          state: 'ready',
          artifact_path: `evidence/${leaf}`,
          overwrite: true,
          run_root: runRoot,
          viewport: { width: 1280, height: 800, devicePixelRatio: dpr, colorScheme: 'light' },
        },
      },
      undefined,
      { timeout: 900_000 },
    );
  try {
    const warm = await call(`${origin}/small`, `warm-${label}.png`);
    if (warm.structuredContent.result !== 'captured') throw new Error(`warm-up failed: ${warm.structuredContent.error}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = treeMemory(pid);
    const sampler = peakSampler(pid, 100);
    const started = Date.now();
    const result = await call(`${origin}/tall`, `tall-${label}.png`);
    const ms = Date.now() - started;
    const peak = sampler.stop();
    const payload = result.structuredContent;
    if (payload.result !== 'captured') throw new Error(`tall capture failed: ${payload.error}`);
    return {
      bin,
      idleRssMb: Math.round(idle.rssMb),
      idlePssMb: Math.round(idle.pssMb),
      ...peak,
      ms,
      bytes: fs.statSync(payload.written_path).size,
      file: payload.written_path,
    };
  } finally {
    await client.close();
  }
}

(async () => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url.startsWith('/tall') ? tallPage(height) : SMALL);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tall-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# bench\n');
  console.log(`tall page 1280 × ${height} CSS px at DPR ${dpr}; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
  const results = [];
  try {
    for (const [i, bin] of bins.entries()) {
      const r = await measure(bin, origin, runRoot, String(i));
      results.push(r);
      console.log(
        `${bin}\n  idle: PSS ${r.idlePssMb} MB, RSS ${r.idleRssMb} MB\n  peak: PSS ${r.peakPssMb} MB, RSS ${r.peakRssMb} MB (server + browser)\n  ${(r.ms / 1000).toFixed(1)} s, PNG ${(r.bytes / 1e6).toFixed(2)} MB`,
      );
    }
    if (results.length > 1) {
      const first = decodePng(fs.readFileSync(results[0].file));
      for (const r of results.slice(1)) {
        const other = decodePng(fs.readFileSync(r.file));
        const same = other.header.width === first.header.width && other.header.height === first.header.height && other.pixels.equals(first.pixels);
        console.log(`pixels of ${r.bin} ${same ? 'identical to' : 'DIFFER from'} ${results[0].bin} (${other.header.width}×${other.header.height})`);
      }
    }
    const mb = (value) => ({ value, unit: 'MB' });
    benchResults.writeResults(benchResults.jsonOutPath(argv), __filename, argv, {
      bench: 'tall-page',
      engine: 'the browser the server launches by default',
      tables: {
        'tall-page-memory': {
          caption: `a 1280 × ${height} CSS px page at DPR ${dpr}, captured by the built server after one small capture; /proc sampled for the server and every process under it (PSS: what the tree holds; the RSS sum counts shared pages once per process)`,
          columns: ['server', 'idle PSS', 'peak PSS', 'peak RSS sum', 'capture', 'PNG'],
          rows: results.map((r) => [
            `\`${path.relative(process.cwd(), r.bin)}\``,
            mb(r.idlePssMb),
            mb(r.peakPssMb),
            mb(r.peakRssMb),
            { value: Math.round(r.ms), unit: 'ms' },
            mb(Math.round(r.bytes / 1e4) / 100),
          ]),
        },
      },
    });
  } finally {
    server.close();
    fs.rmSync(runRoot, { recursive: true, force: true });
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
