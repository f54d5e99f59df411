#!/usr/bin/env node
/**
 * How fast the plugin answers `initialize` when a host starts it from a plain
 * clone (no node_modules, no dist/): the committed plugin/server.cjs, as
 * .mcp.json runs it, against the built server (dist/src/bin.js, which needs
 * node_modules) and, as the floor, a node process that answers the first line
 * it reads, measured in the same run. The clone is made once (git clone of HEAD) and every start after the
 * first warm-up is on a warm disk.
 *
 * For each start: wall time from spawn to the initialize answer, and the CPU
 * the process used up to that moment (utime+stime from /proc, Linux), which
 * stays meaningful when other work shares the machine. Prints medians.
 *
 * --installed also packs HEAD's tarball (npm pack), installs it offline into
 * a temp folder as a user would (npm install <tgz> --offline) and times its
 * bin, which must start as fast as the checkout's (src/app/bundledProgram.ts);
 * --bin LABEL=PATH adds any other bin (an older install, say). --screenshot
 * also times, per subject but the floor, spawn to the answer
 * of the first call: initialize, then a screenshot of a 127.0.0.1 page
 * (browser launch included).
 *
 * Run after `npm run build`:
 *   node bench/plugin-start.js [--runs 15] [--installed] [--bin LABEL=PATH]... [--screenshot]
 */
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { spawn, execFileSync } = require('child_process');

const REPO = path.join(__dirname, '..');
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 15;
const INSTALLED = process.argv.includes('--installed');
const SCREENSHOT = process.argv.includes('--screenshot');
const EXTRA_BINS = process.argv
  .flatMap((arg, i) => (process.argv[i - 1] === '--bin' ? [arg.split('=')] : []))
  .map(([label, bin]) => [label, path.resolve(bin)]);
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);
const INITIALIZE =
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  }) + '\n';

function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** Spawns, sends initialize, resolves on the first stdout line (or, with `call`, on the answer to that tools/call, id 2). */
function start(args, env, cwd, call) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let done = false;
    const finish = (ok) => {
      if (done) return;
      done = true;
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      const cpu = cpuMs(child.pid);
      child.stdin.end();
      child.kill();
      if (!ok) return reject(new Error(`${args.join(' ')} did not answer ${call ? 'the call' : 'initialize'}: ${out.slice(0, 500)}`));
      resolve({ wall, cpu });
    };
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!call) {
        if (out.includes('\n')) finish(out.includes('"protocolVersion"'));
        return;
      }
      const answer = out.split('\n').find((line) => line.includes('"id":2'));
      if (answer) finish(answer.includes('"result":"captured"'));
    });
    child.on('exit', () => finish(false));
    child.stdin.write(INITIALIZE);
    if (call)
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'execute_capture_plan', arguments: call } }) + '\n');
  });
}

/** HEAD's tarball (npm pack, whose prepack builds when dist/ is stale), installed offline into `work`: the installed bin. */
function installTarball(work) {
  const report = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }),
  )[0];
  const consumer = path.join(work, 'consumer');
  fs.mkdirSync(consumer);
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', path.join(work, report.filename), '--offline', '--no-audit', '--no-fund'], { cwd: consumer, stdio: 'ignore' });
  return path.join(consumer, 'node_modules', report.name, 'dist', 'src', 'bin.js');
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-plugin-start-'));
  try {
    const clone = path.join(work, 'clone');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', '--no-checkout', REPO, clone]);
    execFileSync('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', head], { cwd: clone });
    const env = { PATH: process.env.PATH, HOME: os.homedir(), DESIGN_PLAYBOOK_RUN_ROOT: work };
    const bundle = path.join(clone, 'plugin', 'server.cjs');
    const built = path.join(REPO, 'dist', 'src', 'bin.js');
    if (!fs.existsSync(built)) throw new Error('run `npm run build` first');
    const subjects = [
      // The floor: node itself, answering the first line it reads.
      ['node answering at once (floor)', ['-e', 'process.stdin.once("data",()=>process.stdout.write(\'{"protocolVersion":"x"}\\n\'))'], true],
      ['plugin/server.cjs from a plain clone', [bundle]],
      ['dist/src/bin.js with node_modules (peer)', [built]],
      ...(INSTALLED ? [['installed tarball (npm install --offline)', [installTarball(work)]]] : []),
      ...EXTRA_BINS.map(([label, bin]) => [label, [bin]]),
    ];
    const results = {};
    for (const [name] of subjects) results[name] = { wall: [], cpu: [] };
    // Interleaved, so a change in machine load hits every subject alike; the first round warms the disk.
    for (let round = 0; round <= RUNS; round++) {
      for (const [name, args] of subjects) {
        const r = await start(args, env, work);
        if (round === 0) continue;
        results[name].wall.push(r.wall);
        results[name].cpu.push(r.cpu);
      }
    }
    console.log(`initialize answered, median of ${RUNS} warm starts (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores):`);
    for (const [name] of subjects) {
      console.log(
        `  ${name.padEnd(46)} wall ${median(results[name].wall).toFixed(0).padStart(5)} ms   cpu ${median(results[name].cpu).toFixed(0).padStart(5)} ms`,
      );
    }
    const b = results['plugin/server.cjs from a plain clone'];
    const d = results['dist/src/bin.js with node_modules (peer)'];
    console.log(`  bundle / built server: wall ${(median(b.wall) / median(d.wall)).toFixed(2)}x, cpu ${(median(b.cpu) / median(d.cpu)).toFixed(2)}x`);
    console.log(`  bundle size: ${(fs.statSync(bundle).size / 1024 / 1024).toFixed(2)} MB`);
    if (SCREENSHOT)
      await firstScreenshots(
        subjects.filter(([, , skip]) => !skip),
        env,
        work,
      );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Spawn to the answer of a first screenshot of a 127.0.0.1 page, per subject, interleaved; medians. */
async function firstScreenshots(subjects, env, work) {
  const page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>t</title><body data-state="ready"><h1>First call</h1><p>A small page.</p></body>');
  });
  await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${page.address().port}/`;
  fs.writeFileSync(path.join(work, 'plan.md'), '# bench\n');
  const times = Object.fromEntries(subjects.map(([name]) => [name, { wall: [], cpu: [] }]));
  try {
    for (let round = 0; round <= RUNS; round++) {
      for (const [name, args] of subjects) {
        const call = {
          schemaVersion: 1,
          url,
          type: 'screenshot',
          state: 'ready',
          artifact_path: `evidence/first-${round}-${subjects.findIndex(([n]) => n === name)}.png`,
          viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
        };
        const r = await start(args, env, work, call);
        if (round > 0) {
          times[name].wall.push(r.wall);
          times[name].cpu.push(r.cpu);
        }
      }
    }
  } finally {
    page.close();
  }
  console.log(`first screenshot answered (spawn, initialize, browser launch, capture), median of ${RUNS} (load average ${os.loadavg()[0].toFixed(1)}):`);
  for (const [name] of subjects) {
    const { wall, cpu } = times[name];
    console.log(
      `  ${name.padEnd(46)} wall ${median(wall).toFixed(0).padStart(5)} ms   cpu ${median(cpu).toFixed(0).padStart(5)} ms (the server's; the browser's aside)`,
    );
  }
}

main().catch((err) => {
  console.error(err.stack || err);
  process.exit(1);
});
