#!/usr/bin/env node
/**
 * `stories --run` at scale: a Storybook of N stories (default 1,000), run
 * through the pool, killed part way and run again to resume.
 *
 * The Storybook is the committed fixture (test/fixtures/storybook/static)
 * with its index.json rewritten to list N stories under generated titles
 * ("Scale/Button 042" …), each pointing at one of the fixture's CSF files:
 * Storybook's preview processes a CSF file under the title its index entry
 * gives, so one built bundle renders them all as distinct stories, ids and
 * all (`scale-button-042--primary`). The throwing story is left out.
 *
 * The run (the built bin as a child process, screenshots with their probe
 * sidecars, --parallel 4) is killed with SIGKILL once KILL_AT of the
 * captures are in the manifest, then the same command is run again with the
 * same --out. Sampled every 500 ms from /proc: the proportional set size of
 * the command and everything it started (the browser included), and of the
 * command's own process. Prints, and with --json writes:
 *   - captures, wall time and captures/s of each part, CPU per story;
 *   - memory: the peak, and the median of the first and of the last fifth of
 *     the samples (bounded: the last fifth does not grow with the stories
 *     done);
 *   - resume: captures the second run skipped ("already there") and made,
 *     and whether the manifest ends with each story's capture exactly once
 *     and every file on disk.
 *
 * Run after `npm run build`:
 *   node bench/stories-scale.js [--stories N] [--kill-at FRACTION] [--json OUT.json]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { performance } = require('perf_hooks');
const engines = require('./lib/engines');
const { treeMemory, treeCpuMs } = require('./lib/procMemory');
const results = require('./lib/results');

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const STORIES = Number(option('--stories', 1000));
const KILL_AT = Number(option('--kill-at', 0.4));
const PARALLEL = 4;
const SAMPLE_MS = 500;
const ENGINE = engines.FULL;
const FIXTURE = path.join(__dirname, '..', 'test', 'fixtures', 'storybook', 'static');
const BIN = path.join(__dirname, '..', 'dist', 'src', 'bin.js');

/** A copy of the fixture whose index lists `count` stories under generated titles. */
function scaleStorybook(dir, count) {
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'));
  const sources = Object.values(index.entries).filter((e) => e.type === 'story' && !e.id.endsWith('--broken') && (e.tags || []).includes('test'));
  const entries = {};
  for (let copy = 0; Object.keys(entries).length < count; copy++) {
    for (const source of sources) {
      if (Object.keys(entries).length >= count) break;
      const component = source.title.split('/').pop();
      const number = String(copy).padStart(3, '0');
      const id = `scale-${component.toLowerCase()}-${number}--${source.id.split('--')[1]}`;
      entries[id] = { ...source, id, title: `Scale/${component} ${number}` };
    }
  }
  fs.writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ ...index, entries }));
  return Object.keys(entries);
}

function manifestLines(out) {
  try {
    return fs
      .readFileSync(path.join(out, 'evidence', 'manifest.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim());
  } catch {
    return [];
  }
}

/** The command's own resident set (its Node heap and buffers, the manifest and the plan among them), MB. */
function ownRss(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return 0;
  }
}

const median = (xs) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs `stories DIR --run --out OUT`, sampling its memory; killed with
 * SIGKILL once `killAfter` manifest lines exist (null: runs to the end).
 */
function runStories(storybook, out, killAfter) {
  const args = [BIN, 'stories', storybook, '--run', '--out', out, '--parallel', String(PARALLEL), '--viewport', '800x600'];
  const env = { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: ENGINE };
  delete env.DESIGN_PLAYBOOK_CDP_URL;
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const samples = [];
  let cpuMs = 0;
  let killed = false;
  const timer = setInterval(() => {
    const tree = treeMemory(child.pid);
    cpuMs = Math.max(cpuMs, treeCpuMs(child.pid));
    samples.push({ treePssMb: tree.pssMb, ownRssMb: ownRss(child.pid) });
    if (killAfter !== null && !killed && manifestLines(out).length >= killAfter) {
      killed = true;
      child.kill('SIGKILL');
    }
  }, SAMPLE_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearInterval(timer);
      resolve({ code, signal, killed, wallMs: performance.now() - started, cpuMs, samples, stdout, stderr });
    });
  });
}

/** Waits until no process of the killed run is left (its browser exits once its pipe closes). */
async function untilGone(pattern, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = fs.readdirSync('/proc').some((name) => {
      if (!/^\d+$/.test(name)) return false;
      try {
        return fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(pattern);
      } catch {
        return false;
      }
    });
    if (!alive) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function memoryFigures(samples) {
  const pss = samples.map((s) => s.treePssMb);
  const own = samples.map((s) => s.ownRssMb).filter((mb) => mb > 0);
  const fifth = (xs) => Math.max(1, Math.floor(xs.length / 5));
  return {
    peakMb: Math.round(Math.max(...pss)),
    firstFifthMb: Math.round(median(pss.slice(0, fifth(pss)))),
    lastFifthMb: Math.round(median(pss.slice(-fifth(pss)))),
    ownFirstMb: Math.round(median(own.slice(0, fifth(own)))),
    ownLastMb: Math.round(median(own.slice(-fifth(own)))),
  };
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-stories-scale-'));
  try {
    const storybook = path.join(tmp, 'storybook');
    const ids = scaleStorybook(storybook, STORIES);
    const out = path.join(tmp, 'run');
    const killAfter = Math.floor(ids.length * KILL_AT);
    console.log(
      `${ids.length} stories (the fixture's stories under generated titles), 800x600, screenshots + probe, --parallel ${PARALLEL}, engine ${engines.label(ENGINE)}`,
    );

    const first = await runStories(storybook, out, killAfter);
    if (!first.killed) throw new Error(`the first run ended before it was killed (exit ${first.code}): ${first.stderr.slice(-400)}`);
    const gone = await untilGone(out);
    const linesAtKill = manifestLines(out).length;
    const second = await runStories(storybook, out, null);
    if (second.code !== 0) throw new Error(`the resumed run exited ${second.code}: ${second.stderr.slice(-600)}`);

    // The manifest ends with each story once, and each file on disk.
    const lines = manifestLines(out).map((line) => JSON.parse(line));
    const byStory = new Map();
    for (const line of lines) byStory.set(line.story?.id, (byStory.get(line.story?.id) || 0) + 1);
    const missing = ids.filter((id) => !byStory.has(id));
    const twice = [...byStory].filter(([, n]) => n > 1).map(([id]) => id);
    const files = ids.filter((id) => fs.existsSync(path.join(out, 'evidence', 'stories', id, '800x600@1-light.png'))).length;
    const summary = /done: (\d+) captures?, (\d+) captured, (\d+) failed(?:, (\d+) already there)?/.exec(second.stderr + second.stdout);
    const made = summary ? Number(summary[2]) : NaN;
    const skipped = summary && summary[4] ? Number(summary[4]) : 0;

    const memFirst = memoryFigures(first.samples);
    const memSecond = memoryFigures(second.samples);
    const rate = (n, ms) => Math.round((n / (ms / 1000)) * 100) / 100;
    console.log(`first run: killed (SIGKILL) at ${linesAtKill} manifest lines after ${(first.wallMs / 1000).toFixed(1)} s; its processes gone: ${gone}`);
    console.log(
      `  ${rate(linesAtKill, first.wallMs)} captures/s; memory (command + browser, PSS): peak ${memFirst.peakMb} MB, first fifth ${memFirst.firstFifthMb} MB, last fifth ${memFirst.lastFifthMb} MB`,
    );
    console.log(
      `resumed run: ${skipped} already there, ${made} captured in ${(second.wallMs / 1000).toFixed(1)} s (${rate(made, second.wallMs)} captures/s), exit ${second.code}`,
    );
    console.log(
      `  memory: peak ${memSecond.peakMb} MB, first fifth ${memSecond.firstFifthMb} MB, last fifth ${memSecond.lastFifthMb} MB; the command alone (RSS) ${memSecond.ownFirstMb} → ${memSecond.ownLastMb} MB`,
    );
    console.log(`  CPU per story: ${Math.round(second.cpuMs / Math.max(1, made))} ms (command + browser)`);
    console.log(
      `manifest: ${lines.length} lines, ${byStory.size} stories, ${missing.length} missing, ${twice.length} twice; screenshots on disk: ${files}/${ids.length}`,
    );
    console.log(
      `load average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (${os.cpus().length} CPUs)`,
    );

    results.writeResults(results.jsonOutPath(argv), __filename, argv, {
      bench: 'stories-scale',
      engine: engines.label(ENGINE),
      tables: {
        'stories-scale': {
          caption: `${ids.length} stories at 800x600, screenshots with their probe sidecars, --parallel ${PARALLEL}; killed with SIGKILL at ${linesAtKill} captures and run again with the same --out; memory is the proportional set size of the command and its browser, sampled every ${SAMPLE_MS} ms`,
          columns: ['part', 'captures', 'captures/s', 'memory peak', 'memory, first fifth → last fifth', 'the command alone', 'CPU per story'],
          rows: [
            [
              'until killed',
              linesAtKill,
              rate(linesAtKill, first.wallMs),
              `${memFirst.peakMb} MB`,
              `${memFirst.firstFifthMb} → ${memFirst.lastFifthMb} MB`,
              `${memFirst.ownFirstMb} → ${memFirst.ownLastMb} MB`,
              '—',
            ],
            [
              `resumed (${skipped} already there)`,
              made,
              rate(made, second.wallMs),
              `${memSecond.peakMb} MB`,
              `${memSecond.firstFifthMb} → ${memSecond.lastFifthMb} MB`,
              `${memSecond.ownFirstMb} → ${memSecond.ownLastMb} MB`,
              `${Math.round(second.cpuMs / Math.max(1, made))} ms`,
            ],
            [
              'the run at the end',
              `${byStory.size} of ${ids.length} stories once each`,
              '—',
              '—',
              '—',
              '—',
              `${missing.length} missing, ${twice.length} twice, ${files} PNGs`,
            ],
          ],
        },
      },
    });
    if (missing.length || twice.length || files !== ids.length || skipped + made !== ids.length) process.exitCode = 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
