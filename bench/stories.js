#!/usr/bin/env node
/**
 * Every story of the committed Storybook fixture (test/fixtures/storybook/
 * static, the throwing story left out) at three viewports, side by side on
 * the same engine:
 *   - ours: `stories FOLDER --run --out DIR` (the built bin as a child
 *     process: the index read, the folder served, the browser launched, each
 *     story's render awaited, the capture with its probe sidecar, the
 *     manifest and the run report), screenshots only, then screenshot + aria
 *     snapshot per story;
 *   - ours with --fresh-loads (every story on a fresh page, no kept preview);
 *   - the peer: a Playwright loop, a
 *     pool of 4 workers on one browser (launched inside its time), each story
 *     in a fresh context at the viewport: goto iframe.html?id=…, wait until
 *     Storybook's current render is done (or its error display shows), a
 *     full-page screenshot written to disk.
 * Each driver runs as a child process under /usr/bin/time (its CPU: user +
 * system of the whole process tree, browser included). Rounds interleave the
 * drivers so machine load hits them alike; prints the median wall time and
 * CPU per story of each, the ratios, and how many of our screenshots have the
 * same pixels as the peer's.
 *
 * With `--storycap DIR`, storycap (Puppeteer; it switches stories in one
 * loaded preview per worker, over Storybook's channel) runs as a peer too:
 * DIR holds `node_modules/.bin/storycap` and `storybook-static/`, the same
 * fixture built whole (storycap crawls the manager, which the committed
 * build leaves out). Both outside the repository; storycap 5.0.1 declares
 * Storybook 7/8 and runs on this 10.6 build. It ignores the `!test` tag (it
 * captures the Animated badge too) and does not wait for play functions:
 * `--delay 1000` makes its Opened card open, and is what it is run with.
 *
 * With `--lost-pixel DIR`, Lost Pixel 3.22 (Playwright, generate-only mode)
 * runs too: DIR holds its install and bench/peers/lostpixel.config.js
 * copied in; it waits for play functions, and waits 1000 ms before each
 * shot by default. (Loki 0.35 was tried and left out: it reads a story
 * store Storybook 10 no longer has, and crops each shot to the component.)
 *
 * With `--test-runner DIR`, Storybook's own test runner (@storybook/test-runner
 * 0.24.5, Jest + Playwright; it loads the preview once per component file and
 * switches stories over the channel, a screenshot in its postVisit hook) runs
 * once per viewport: DIR holds bench/peers/test-runner/ copied in and
 * installed (`PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install`); the story that
 * throws fails there as it should, which its run.sh expects.
 *
 * Run after `npm run build`:
 *   node bench/stories.js [rounds, default 3] [--storycap DIR] [--lost-pixel DIR] [--test-runner DIR] [--json OUT.json]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { performance } = require('perf_hooks');
const { chromium } = require('playwright-core');
const engines = require('./lib/engines');
const results = require('./lib/results');

const DIST = path.join(__dirname, '..', 'dist', 'src');
const { serveFolder } = require(path.join(DIST, 'stories', 'serveFolder.js'));
const { readFolderIndex } = require(path.join(DIST, 'stories', 'storyIndex.js'));
const { selectStories } = require(path.join(DIST, 'stories', 'selectStories.js'));
const { decodePng } = require(path.join(DIST, 'png', 'decode.js'));

const PEER = process.argv[2] === '--peer';
const ROUNDS = Number((!PEER && /^\d+$/.test(process.argv[2] || '') && process.argv[2]) || 3);
const ENGINE = engines.FULL;
const FIXTURE = path.join(__dirname, '..', 'test', 'fixtures', 'storybook', 'static');
const BIN = path.join(DIST, 'bin.js');
const VIEWPORTS = [
  [640, 480],
  [800, 600],
  [1024, 768],
];
const FILTER = ['--exclude', '*--broken'];
const WORKERS = 4;
const STORYCAP = (() => {
  const i = process.argv.indexOf('--storycap');
  return i >= 0 ? path.resolve(process.argv[i + 1]) : null;
})();
const STORYCAP_DELAY_MS = 1000;
const TEST_RUNNER = (() => {
  const i = process.argv.indexOf('--test-runner');
  return i >= 0 ? path.resolve(process.argv[i + 1]) : null;
})();
const LOST_PIXEL = (() => {
  const i = process.argv.indexOf('--lost-pixel');
  return i >= 0 ? path.resolve(process.argv[i + 1]) : null;
})();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs a driver as a child process under /usr/bin/time, whose user + system
 * time counts the whole process tree (the browser and its renderers are
 * waited for by their parents): its wall time and CPU time, in ms.
 */
function timed(args, env, what) {
  return timedCommand([process.execPath, ...args], env, what);
}

function timedCommand(command, env, what, cwd = undefined) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', ...command], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => {
      const wall = performance.now() - started;
      const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      if (code !== 0 || !cpu) return reject(new Error(`${what} exited ${code}: ${stderr.slice(-500)}`));
      resolve({ wall, cpu: (Number(cpu[1]) + Number(cpu[2])) * 1000 });
    });
  });
}

function runOurs(out, types, extra = []) {
  const args = [BIN, 'stories', FIXTURE, '--run', '--out', out, '--types', types, '--parallel', String(WORKERS), ...FILTER, ...extra];
  for (const [w, h] of VIEWPORTS) args.push('--viewport', `${w}x${h}`);
  const env = { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: ENGINE };
  delete env.DESIGN_PLAYBOOK_CDP_URL;
  return timed(args, env, 'ours');
}

/** The peer in its own process (this file with --peer OUT BASE_URL), so its CPU is counted as ours is. */
function runPeerProcess(out, baseUrl) {
  return timed([__filename, '--peer', out, baseUrl], process.env, 'the peer');
}

/** The PNG files under `dir`. */
function countPngs(dir) {
  let pngs = 0;
  const walk = (at) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(at, entry.name));
      else if (entry.name.endsWith('.png')) pngs++;
    }
  };
  walk(dir);
  return pngs;
}

/** Lost Pixel over the whole build storycap uses (it reads index.json), served here. */
async function runLostPixel(out) {
  const served = await serveFolder(fs.realpathSync(path.join(STORYCAP || LOST_PIXEL, 'storybook-static')));
  try {
    fs.mkdirSync(out, { recursive: true });
    const env = { ...process.env, LP_SB_URL: served.url.replace(/\/$/, ''), LP_OUT: out, LP_CHROME: ENGINE, LOST_PIXEL_DISABLE_TELEMETRY: '1' };
    const measured = await timedCommand([path.join(LOST_PIXEL, 'node_modules', '.bin', 'lost-pixel')], env, 'lost-pixel', LOST_PIXEL);
    return { ...measured, captures: countPngs(out) };
  } finally {
    await served.close();
  }
}

/** Storybook's test runner over the whole build storycap uses, served here, once per viewport: the wall time, CPU and PNGs. */
async function runTestRunner(out) {
  const served = await serveFolder(fs.realpathSync(path.join(STORYCAP || LOST_PIXEL, 'storybook-static')));
  try {
    let wall = 0;
    let cpu = 0;
    for (const [w, h] of VIEWPORTS) {
      const measured = await timedCommand(
        [path.join(TEST_RUNNER, 'run.sh'), served.url.replace(/\/$/, ''), path.join(out, `${w}x${h}`), `${w}x${h}`],
        process.env,
        'test-runner',
        TEST_RUNNER,
      );
      wall += measured.wall;
      cpu += measured.cpu;
    }
    return { wall, cpu, captures: countPngs(out) };
  } finally {
    await served.close();
  }
}

/** storycap over its own whole build, served here: the wall time, CPU and the PNGs it wrote. */
async function runStorycap(out) {
  const served = await serveFolder(fs.realpathSync(path.join(STORYCAP, 'storybook-static')));
  try {
    const args = [path.join(STORYCAP, 'node_modules', '.bin', 'storycap'), served.url.replace(/\/$/, ''), '--chromiumPath', ENGINE, '--serverTimeout', '60000'];
    args.push('--puppeteerLaunchConfig', JSON.stringify({ args: engines.BENCH_ARGS }));
    for (const [w, h] of VIEWPORTS) args.push('-V', `${w}x${h}`);
    args.push('-p', String(WORKERS), '-e', 'Components/Badge/Broken', '--delay', String(STORYCAP_DELAY_MS), '-o', out, '--silent');
    const measured = await timedCommand(args, process.env, 'storycap');
    return { ...measured, captures: countPngs(out) };
  } finally {
    await served.close();
  }
}

/** In the page: Storybook's say-so that the story is done (as its test runner waits for it). */
function storyDone() {
  const body = document.body;
  if (body && (body.classList.contains('sb-show-errordisplay') || body.classList.contains('sb-show-nopreview'))) return true;
  const phase = window.__STORYBOOK_PREVIEW__?.currentRender?.phase;
  return phase === 'completed' || phase === 'finished';
}

async function runPeer(out, stories, baseUrl) {
  const browser = await chromium.launch({ executablePath: ENGINE, args: engines.BENCH_ARGS });
  const jobs = [];
  for (const story of stories) for (const [width, height] of VIEWPORTS) jobs.push({ story, width, height });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { story, width, height } = jobs[next++];
      const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme: 'light' });
      const page = await context.newPage();
      await page.goto(`${baseUrl}iframe.html?id=${story.id}&viewMode=story`);
      await page.waitForFunction(storyDone, null, { polling: 25 });
      const dir = path.join(out, story.id);
      fs.mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: path.join(dir, `${width}x${height}@1-light.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
      await context.close();
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  await browser.close();
}

function samePixels(a, b) {
  const x = decodePng(fs.readFileSync(a));
  const y = decodePng(fs.readFileSync(b));
  return x.header.width === y.header.width && x.header.height === y.header.height && Buffer.compare(x.pixels, y.pixels) === 0;
}

async function main() {
  const stories = selectStories(readFolderIndex(FIXTURE).entries, { exclude: ['*--broken'] }).stories;
  const served = await serveFolder(FIXTURE);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-stories-'));
  const times = { screenshots: [], withAria: [], freshLoads: [], peer: [], storycap: [], lostPixel: [], testRunner: [] };
  const cpu = { screenshots: [], withAria: [], freshLoads: [], peer: [], storycap: [], lostPixel: [], testRunner: [] };
  const made = { storycap: 0, lostPixel: 0, testRunner: 0 };
  let pixels = null;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const shots = path.join(tmp, `ours-${round}`);
      const aria = path.join(tmp, `aria-${round}`);
      const peer = path.join(tmp, `peer-${round}`);
      const drivers = [
        ['peer', () => runPeerProcess(peer, served.url)],
        ['screenshots', () => runOurs(shots, 'screenshot')],
        ['withAria', () => runOurs(aria, 'screenshot,a11y tree')],
        ['freshLoads', () => runOurs(path.join(tmp, `fresh-${round}`), 'screenshot', ['--fresh-loads'])],
      ];
      if (STORYCAP) drivers.push(['storycap', () => runStorycap(path.join(tmp, `storycap-${round}`))]);
      if (LOST_PIXEL) drivers.push(['lostPixel', () => runLostPixel(path.join(tmp, `lost-pixel-${round}`))]);
      if (TEST_RUNNER) drivers.push(['testRunner', () => runTestRunner(path.join(tmp, `test-runner-${round}`))]);
      for (const [key, run] of drivers) {
        const { wall, cpu: used, captures } = await run();
        // Per capture: a peer's count is its own (storycap and Lost Pixel take the opted-out story too), scaled to ours.
        const scale = key in made ? (stories.length * VIEWPORTS.length) / captures : 1;
        times[key].push(wall * scale);
        cpu[key].push(used * scale);
        if (key in made) made[key] = captures;
      }
      if (round === 0) {
        let equal = 0;
        let total = 0;
        for (const story of stories) {
          for (const [w, h] of VIEWPORTS) {
            const leaf = `${w}x${h}@1-light.png`;
            total++;
            if (samePixels(path.join(shots, 'evidence', 'stories', story.id, leaf), path.join(peer, story.id, leaf))) equal++;
          }
        }
        pixels = { equal, total };
      }
    }
  } finally {
    await served.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const captures = stories.length * VIEWPORTS.length;
  const peer = median(times.peer);
  const row = (label, key) => {
    const ms = median(times[key]);
    const perStory = (x) => `${(x / captures).toFixed(0).padStart(5)} ms/story`;
    return `${label.padEnd(44)} ${(ms / 1000).toFixed(2).padStart(6)} s ${perStory(ms)}  ${(ms / peer).toFixed(2)}× peer  CPU ${perStory(median(cpu[key]))}`;
  };
  console.log(
    `${stories.length} stories × ${VIEWPORTS.length} viewports = ${captures} captures, ${WORKERS} at once, ${ROUNDS} rounds (medians), engine ${engines.label(ENGINE)}`,
  );
  console.log(row('peer: Playwright loop, screenshots', 'peer'));
  if (STORYCAP) console.log(row(`peer: storycap (${made.storycap} captures, per capture)`, 'storycap'));
  if (LOST_PIXEL) console.log(row(`peer: Lost Pixel (${made.lostPixel} captures, per capture)`, 'lostPixel'));
  if (TEST_RUNNER) console.log(row(`peer: Storybook test runner (${made.testRunner} captures, per capture)`, 'testRunner'));
  console.log(row('ours: stories --run --fresh-loads, screenshots', 'freshLoads'));
  console.log(row('ours: stories --run, screenshots (+probe)', 'screenshots'));
  console.log(row('ours: stories --run, screenshot + aria', 'withAria'));
  console.log(`pixels equal to the peer's: ${pixels.equal}/${pixels.total}`);
  const argv = process.argv.slice(2);
  const cell = (key) => ({ ...results.pair(median(times[key]) / captures, peer / captures, 'ms'), ratio: Math.round((median(times[key]) / peer) * 100) / 100 });
  const cpuCell = (key) => ({ value: Math.round(median(cpu[key]) / captures), unit: 'ms' });
  results.writeResults(results.jsonOutPath(argv), __filename, argv, {
    bench: 'stories',
    engine: engines.label(ENGINE),
    tables: {
      stories: {
        caption: `${stories.length} stories of the committed fixture × ${VIEWPORTS.length} viewports = ${captures} captures, ${WORKERS} at once, median of ${ROUNDS} round(s) interleaved; wall time per story, ours / the Playwright loop's${STORYCAP || LOST_PIXEL ? ` (a peer's count scaled to ours where it differs: storycap and Lost Pixel take the opted-out story too)` : ''}; each driver a process of its own, browser launch included; pixels: ${pixels.equal} of ${pixels.total} screenshots equal to the peer's`,
        columns: ['driver', 'wall time per story', 'CPU per story'],
        rows: [
          ['peer: Playwright loop (fresh context per story), screenshots', { value: Math.round(peer / captures), unit: 'ms' }, cpuCell('peer')],
          ...(STORYCAP
            ? [
                [
                  `peer: storycap 5.0.1 (a preview per worker, stories switched; --delay ${STORYCAP_DELAY_MS} for play functions), screenshots`,
                  { value: Math.round(median(times.storycap) / captures), unit: 'ms' },
                  // /usr/bin/time counts the processes a command waits for; storycap's Puppeteer 9 leaves its browser unwaited.
                  'not counted (its browser is not its waited-for child)',
                ],
              ]
            : []),
          ...(LOST_PIXEL
            ? [
                [
                  'peer: Lost Pixel 3.22 (Playwright; waits for play functions, then its default 1000 ms), screenshots',
                  { value: Math.round(median(times.lostPixel) / captures), unit: 'ms' },
                  cpuCell('lostPixel'),
                ],
              ]
            : []),
          ...(TEST_RUNNER
            ? [
                [
                  "peer: Storybook's test runner 0.24.5 (Jest + Playwright; a preview per component file, stories switched), screenshots, one run per viewport",
                  { value: Math.round(median(times.testRunner) / captures), unit: 'ms' },
                  cpuCell('testRunner'),
                ],
              ]
            : []),
          ['ours: stories --run --fresh-loads (every story on a fresh page), screenshots with probe sidecars', cell('freshLoads'), cpuCell('freshLoads')],
          ['ours: stories --run (stories switched in kept previews), screenshots with probe sidecars', cell('screenshots'), cpuCell('screenshots')],
          ['ours: stories --run (stories switched in kept previews), screenshot + aria snapshot', cell('withAria'), cpuCell('withAria')],
        ],
      },
    },
  });
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (${os.cpus().length} CPUs)`,
  );
}

async function peerMain() {
  const [out, baseUrl] = process.argv.slice(3);
  const stories = selectStories(readFolderIndex(FIXTURE).entries, { exclude: ['*--broken'] }).stories;
  await runPeer(out, stories, baseUrl);
}

(PEER ? peerMain() : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
