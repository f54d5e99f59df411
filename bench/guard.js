#!/usr/bin/env node
/**
 * What the secret guard (src/boundary/secretGuard.ts: every file scanned for
 * each loaded value in six forms, a trace's ZIP entries inflated) adds to a
 * trace capture, side by side in one run: the same traced sign-in (fill the
 * user by name, type the password by name, click, wait for the signed-in
 * state) through the built boundary and provider with the guard on, and
 * with it off (its module's guardFile replaced by a no-op for those rounds;
 * the browser-side masking runs in both). Rounds interleave on and off so
 * machine load hits them alike. Two pages: the login form alone, and the
 * same with a 2 MB script in the trace's resources (the guard's work grows
 * with the archive). Also timed: guardFile alone on each archive.
 *
 * Prints the medians on and off (on / off − 1; target ≤ 5%: on a loaded
 * machine the wall-time difference is mostly noise), the guard's own time
 * measured inside each guarded capture as a share of it, and the archive
 * sizes.
 *
 * Run after `npm run build`: node bench/guard.js [rounds, default 15]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const engines = require('./lib/engines');

const DIST = path.join(__dirname, '..', 'dist', 'src');
const guard = require(path.join(DIST, 'boundary', 'secretGuard.js'));
const { executeCapturePlan } = require(path.join(DIST, 'boundary', 'index.js'));
const { PuppeteerCaptureProvider } = require(path.join(DIST, 'browser', 'capture', 'puppeteerProvider.js'));
const { secretStore } = require(path.join(DIST, 'common', 'secrets.js'));

const ROUNDS = Number(process.argv[2] || 15);
const CHROMIUM = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
const secrets = secretStore({ APP_USER: 'alice.bench@example.com', APP_PASSWORD: 'correct horse battery staple' });

const loginPage = (bundle) => `<!doctype html><html><head><title>Sign in</title>${bundle ? '<script src="/bundle.js"></script>' : ''}</head>
<body data-state="login"><form method="post" action="/login">
<input id="user" name="user" aria-label="User"> <input id="password" name="password" type="password" aria-label="Password">
<button id="go">Sign in</button></form></body></html>`;
// 2 MB of script the page loads (so the archive holds it), text that compresses as code does.
const BUNDLE = Array.from({ length: 40000 }, (_, i) => `window.f${i} = function (a) { return a * ${i} + "${(i * 2654435761) % 1e9}"; };`).join('\n');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/bundle.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(BUNDLE);
    }
    if (req.url.startsWith('/login.html')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(loginPage(req.url.includes('bundle')));
    }
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><body data-state="signed-in"><h1>Welcome</h1></body>');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-guard-bench-'));
  fs.writeFileSync(path.join(base, 'plan.md'), '');
  const provider = new PuppeteerCaptureProvider({ flags: () => ({ executablePath: CHROMIUM }), env: { ...process.env, DESIGN_PLAYBOOK_MAX_PARALLEL: '1' } });
  const realGuard = guard.guardFile;
  const actions = [
    { do: 'fill', selector: '#user', secret: 'APP_USER' },
    { do: 'type', selector: '#password', secret: 'APP_PASSWORD' },
    { do: 'click', selector: '#go' },
    { do: 'wait_for_state', state: 'signed-in' },
  ];
  let n = 0;
  // The guard's own time inside each guarded capture (every file it scanned), which load on the machine hardly moves.
  let inside = 0;
  const timedGuard = (...a) => {
    const t = performance.now();
    try {
      return realGuard(...a);
    } finally {
      inside += performance.now() - t;
    }
  };
  const capture = async (url, guardOn) => {
    guard.guardFile = guardOn ? timedGuard : () => undefined;
    inside = 0;
    const artifact = `evidence/t${n++}.trace.zip`;
    const start = performance.now();
    const result = await executeCapturePlan(
      {
        schemaVersion: 1,
        url,
        type: 'interaction trace',
        state: 'signed-in',
        artifact_path: artifact,
        run_root: base,
        viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
        actions,
      },
      { provider, env: {}, secrets },
    );
    const ms = performance.now() - start;
    guard.guardFile = realGuard;
    if (result.result !== 'captured') throw new Error(`capture failed: ${result.error}`);
    return { ms, path: result.written_path, guardMs: inside };
  };
  console.log(
    `executable: ${engines.label(CHROMIUM)}; ${ROUNDS} rounds each, interleaved; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  try {
    for (const [label, url] of [
      ['login form', `${origin}/login.html`],
      ['login form + 2 MB script', `${origin}/login.html?bundle`],
    ]) {
      await capture(url, true); // warm-up
      const on = [];
      const off = [];
      const alone = [];
      const shares = [];
      let size = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 ? [false, true] : [true, false];
        for (const guardOn of order) {
          const { ms, path: file, guardMs } = await capture(url, guardOn);
          (guardOn ? on : off).push(ms);
          if (guardOn) {
            shares.push(guardMs / ms);
            const bytes = fs.readFileSync(file);
            size = bytes.length;
            const t = performance.now();
            realGuard('t.trace.zip', bytes, secrets);
            alone.push(performance.now() - t);
          }
          fs.rmSync(file, { force: true });
        }
      }
      const share = median(on) / median(off) - 1;
      console.log(
        `${label}: capture ${median(on).toFixed(1)} ms guard on / ${median(off).toFixed(1)} ms off = ${(share * 100).toFixed(1)}% ` +
          `; the guard's own time inside a guarded capture: median ${(median(shares) * 100).toFixed(2)}%, max ${(Math.max(...shares) * 100).toFixed(2)}%` +
          ` (guardFile alone on the archive ${median(alone).toFixed(2)} ms); archive ${(size / 1024).toFixed(0)} KB`,
      );
    }
  } finally {
    await provider.close();
    server.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
