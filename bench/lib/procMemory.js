/**
 * Memory and CPU of a process and everything it started, read from /proc (Linux):
 * the sum of resident set sizes (VmRSS; counts pages shared between Chromium's
 * processes once per process, so it overstates) and the sum of proportional
 * set sizes (Pss from smaps_rollup; shared pages split between their users,
 * so the sum is the memory the tree really holds).
 */
const fs = require('fs');

function childrenByParent() {
  const byParent = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!byParent.has(ppid)) byParent.set(ppid, []);
      byParent.get(ppid).push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return byParent;
}

/** The process and all its descendants. */
function processTree(rootPid) {
  const byParent = childrenByParent();
  const out = [rootPid];
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i]) || []));
  return out;
}

function kbField(file, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** { rssMb, pssMb, processes } of the tree now. */
function treeMemory(rootPid) {
  const pids = processTree(rootPid);
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    rss += kbField(`/proc/${pid}/status`, 'VmRSS');
    pss += kbField(`/proc/${pid}/smaps_rollup`, 'Pss');
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024, processes: pids.length };
}

/** Samples the tree every `intervalMs` until stop(); stop() returns the peaks. */
function peakSampler(rootPid, intervalMs = 100) {
  let peakRss = 0;
  let peakPss = 0;
  const tick = () => {
    const now = treeMemory(rootPid);
    peakRss = Math.max(peakRss, now.rssMb);
    peakPss = Math.max(peakPss, now.pssMb);
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { peakRssMb: Math.round(peakRss), peakPssMb: Math.round(peakPss) };
    },
  };
}

/** Clock ticks per second for /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/**
 * CPU milliseconds of the tree: user and system time of each live process
 * plus the time of the children it has reaped (cutime, cstime), so a closed
 * renderer still counts, through the zygote that reaped it.
 */
function treeCpuMs(rootPid) {
  let ticks = 0;
  for (const pid of processTree(rootPid)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks * TICK_MS;
}

module.exports = { processTree, treeMemory, peakSampler, treeCpuMs };
