/**
 * The virtual clock's pure parts: the order its queue runs things in, the
 * timer clamping browsers apply, when a page is at rest and how its activity
 * is named, the seeded Math.random, and the fixed-clock and settle-bound
 * settings' parsing.
 */
import { Scheduler, type TimerJob } from '../../cdp/injected/clock/scheduler';
import { seededRandom } from '../../cdp/injected/clock/random';
import { activityOf, atRest, describeActivity, isSlowRepeat, restartsQuiet } from '../../cdp/injected/clock/activity';
import { parseFixedTime, fixedTime, settleMaxMs } from '../../src/browser/options';

/** Runs the scheduler up to `until` the way the page's controls do, logging what ran. */
function runUntil(scheduler: Scheduler, until: number): void {
  for (let guard = 0; guard < 10_000; guard++) {
    const due = scheduler.peek(until);
    if (!due) break;
    if (due.kind === 'timer') {
      scheduler.now = Math.max(scheduler.now, due.job.due);
      scheduler.take(due.job)();
    } else {
      scheduler.now = due.time;
      for (const callback of scheduler.takeFrame()) callback(due.time);
    }
  }
  scheduler.now = until;
}

describe('virtual clock scheduler', () => {
  test('runs timers by due time, then by the order they were set; frames after timers due at the same instant', () => {
    const s = new Scheduler(16);
    const log: string[] = [];
    s.schedule(16, () => log.push('t16-first'), false);
    s.requestFrame((t) => log.push(`frame@${t}`));
    s.schedule(5, () => log.push('t5'), false);
    s.schedule(16, () => log.push('t16-second'), false);
    s.schedule(0, () => log.push('t0'), false);
    runUntil(s, 40);
    expect(log).toEqual(['t0', 't5', 't16-first', 't16-second', 'frame@16']);
    expect(s.now).toBe(40);
  });

  test('a frame callback registered during a frame waits for the next boundary', () => {
    const s = new Scheduler(16);
    const times: number[] = [];
    const loop = (t: number) => {
      times.push(t);
      s.requestFrame(loop);
    };
    s.requestFrame(loop);
    runUntil(s, 50);
    expect(times).toEqual([16, 32, 48]);
  });

  test('nothing runs until time is advanced past its due time', () => {
    const s = new Scheduler(16);
    let ran = 0;
    s.schedule(400, () => ran++, false);
    runUntil(s, 399);
    expect(ran).toBe(0);
    runUntil(s, 400);
    expect(ran).toBe(1);
  });

  test('intervals repeat at their period; cancelled jobs never run', () => {
    const s = new Scheduler(16);
    const ticks: number[] = [];
    const id = s.schedule(10, () => ticks.push(s.now), true);
    const cancelled = s.schedule(20, () => ticks.push(-1), false);
    s.cancel(cancelled);
    runUntil(s, 45);
    expect(ticks).toEqual([10, 20, 30, 40]);
    s.cancel(id);
    runUntil(s, 100);
    expect(ticks).toHaveLength(4);
    expect(s.pendingCount()).toBe(0);
  });

  test('zero-delay timers nested deeper than five are clamped to 4 ms, so a self-rescheduling timer cannot stop time', () => {
    const s = new Scheduler(16);
    const at: number[] = [];
    const again = () => {
      at.push(s.now);
      s.schedule(0, again, false);
    };
    s.schedule(0, again, false);
    runUntil(s, 12);
    // Levels 1-5 run at 0 ms; from level 6 each waits 4 ms.
    expect(at).toEqual([0, 0, 0, 0, 0, 4, 8, 12]);
  });

  test('a child frame starting later keeps frame boundaries on the shared grid', () => {
    const s = new Scheduler(16, 40);
    const times: number[] = [];
    s.requestFrame((t) => times.push(t));
    runUntil(s, 60);
    expect(times).toEqual([48]);
  });
});

describe('at rest', () => {
  const still = { finite: 0, endless: 0 };
  const rule = { horizonMs: 250, quietMs: 1000 };
  /** Activity with the page unchanged since time 0 (quiet once 1000 ms have passed). */
  const activity = (s: Scheduler, counts = still, quietSince = -Infinity) => activityOf(s, counts, rule, quietSince);

  /** Runs due timers as the page's controls do, counting each firing as changing the page or not. */
  function fire(s: Scheduler, until: number, changes: (job: TimerJob) => boolean = () => false): void {
    for (let guard = 0; guard < 10_000; guard++) {
      const due = s.peek(until);
      if (!due || due.kind !== 'timer') break;
      s.now = Math.max(s.now, due.job.due);
      s.take(due.job)();
      const source = s.sourceOf(due.job);
      if (source) source.quietFirings = changes(due.job) ? 0 : source.quietFirings + 1;
      s.ran(due.job);
    }
    s.now = until;
  }

  test('a requested frame keeps the page busy; once the loop stops asking, it is at rest', () => {
    const s = new Scheduler(16);
    s.requestFrame(() => undefined);
    expect(activity(s)).toEqual({ frame: true, timer: null, finite: 0, endless: 0, changing: false });
    runUntil(s, 16);
    expect(atRest(activity(s))).toBe(true);
  });

  test('a one-off timer due within the horizon keeps it busy; one due later does not', () => {
    const s = new Scheduler(16);
    s.schedule(1000, () => undefined, false);
    expect(atRest(activity(s))).toBe(true);
    s.schedule(250, () => undefined, false);
    expect(activity(s).timer).toEqual({ delay: 250, repeats: false });
    runUntil(s, 250);
    expect(atRest(activity(s))).toBe(true);
    runUntil(s, 800);
    // The one-off is due in 200 ms now: within the horizon.
    expect(activity(s).timer).toEqual({ delay: 1000, repeats: false });
  });

  test('a repeating timer slower than the horizon never keeps it busy (a poll, a clock, a carousel)', () => {
    const s = new Scheduler(16);
    s.schedule(500, () => undefined, true);
    for (const t of [0, 300, 499, 500, 750]) {
      fire(s, t, () => true);
      expect(activity(s).timer).toBeNull();
    }
  });

  test('a timeout that sets itself again is one repeating source: slow, it is a poll; fast and changing the page, it is motion', () => {
    const s = new Scheduler(16);
    const poll = () => void s.schedule(600, poll, false);
    s.schedule(600, poll, false);
    // Until it has set itself again it is a one-off, due within the horizon at 400.
    fire(s, 400);
    expect(activity(s).timer).toEqual({ delay: 600, repeats: false });
    fire(s, 600);
    expect(activity(s).timer).toBeNull();
    fire(s, 1100);
    expect(activity(s).timer).toBeNull();

    const c = new Scheduler(16);
    let n = 0;
    const tick = () => {
      if (++n < 50) c.schedule(20, tick, false);
    };
    c.schedule(20, tick, false);
    fire(c, 200, () => true);
    expect(activity(c).timer).toEqual({ delay: 20, repeats: false });
    fire(c, 2000, () => true);
    expect(n).toBe(50);
    expect(activity(c).timer).toBeNull();
  });

  test('a fast repeating timer is busy while it changes the page, and a poll once two firings in a row changed nothing', () => {
    const s = new Scheduler(16);
    let changing = true;
    s.schedule(50, () => undefined, true);
    fire(s, 200, () => changing);
    expect(activity(s).timer).toEqual({ delay: 50, repeats: true });
    changing = false;
    fire(s, 250, () => changing);
    expect(activity(s).timer).toEqual({ delay: 50, repeats: true });
    fire(s, 300, () => changing);
    expect(activity(s).timer).toBeNull();
    changing = true;
    fire(s, 350, () => changing);
    expect(activity(s).timer).toEqual({ delay: 50, repeats: true });
  });

  test('the page is busy until it has gone unchanged for the quiet window', () => {
    const s = new Scheduler(16);
    runUntil(s, 999);
    expect(activity(s, still, 0)).toEqual({ frame: false, timer: null, finite: 0, endless: 0, changing: true });
    runUntil(s, 1000);
    expect(atRest(activity(s, still, 0))).toBe(true);
    expect(atRest(activity(s, still, 400))).toBe(false);
    expect(isSlowRepeat({ period: 500, repeating: true, quietFirings: 0 }, 250)).toBe(true);
    expect(restartsQuiet({ period: 500, repeating: true, quietFirings: 0 }, 250)).toBe(false);
    expect(restartsQuiet({ period: 500, repeating: false, quietFirings: 0 }, 250)).toBe(true);
    expect(restartsQuiet(null, 250)).toBe(true);
  });

  test('the soonest busy timer is the one named, with the period an interval repeats at', () => {
    const s = new Scheduler(16);
    s.schedule(40, () => undefined, false);
    s.schedule(10, () => undefined, true);
    expect(activity(s).timer).toEqual({ delay: 10, repeats: true });
  });

  test('animations still running, or never ending, keep it busy', () => {
    const s = new Scheduler(16);
    expect(atRest(activity(s, { finite: 1, endless: 0 }))).toBe(false);
    expect(atRest(activity(s, { finite: 0, endless: 2 }))).toBe(false);
  });

  test('the warning names each kind of activity, and a changing DOM only when nothing else explains it', () => {
    expect(describeActivity({ frame: true, timer: { delay: 10, repeats: true }, finite: 1, endless: 2, changing: true })).toEqual([
      'a requestAnimationFrame loop',
      'a setInterval every 10 ms',
      '2 endless animations',
      '1 animation still running',
    ]);
    expect(describeActivity({ frame: false, timer: { delay: 20, repeats: false }, finite: 3, endless: 1, changing: false })).toEqual([
      'a setTimeout of 20 ms',
      '1 endless animation',
      '3 animations still running',
    ]);
    expect(describeActivity({ frame: false, timer: null, finite: 0, endless: 0, changing: true })).toEqual(['its DOM still changing']);
    expect(describeActivity({ frame: false, timer: null, finite: 0, endless: 0, changing: false })).toEqual([]);
  });
});

describe('settle bound setting', () => {
  test('DESIGN_PLAYBOOK_SETTLE_MAX_MS sets it; unset, blank or not a positive integer means 5000', () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(settleMaxMs({ DESIGN_PLAYBOOK_SETTLE_MAX_MS: '12000' })).toBe(12000);
      expect(settleMaxMs({})).toBe(5000);
      expect(settleMaxMs({ DESIGN_PLAYBOOK_SETTLE_MAX_MS: ' ' })).toBe(5000);
      expect(settleMaxMs({ DESIGN_PLAYBOOK_SETTLE_MAX_MS: '0' })).toBe(5000);
      expect(settleMaxMs({ DESIGN_PLAYBOOK_SETTLE_MAX_MS: '2.5' })).toBe(5000);
      expect(stderr).toHaveBeenCalledWith('[design-playbook-evidence] warning: DESIGN_PLAYBOOK_SETTLE_MAX_MS=0 is not a positive integer; using 5000\n');
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('seeded Math.random', () => {
  test('the same seed gives the same sequence, in [0, 1)', () => {
    const a = seededRandom(0x5eed);
    const b = seededRandom(0x5eed);
    const first = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(first);
    expect(first.every((n) => n >= 0 && n < 1)).toBe(true);
    expect(new Set(first).size).toBeGreaterThan(990);
    expect(seededRandom(1)()).not.toBe(first[0]);
  });
});

describe('fixed clock setting', () => {
  test('reads an ISO 8601 instant with its offset', () => {
    expect(parseFixedTime('2026-01-01T09:00:00Z', 'X')).toEqual({ iso: '2026-01-01T09:00:00.000Z', epochMs: Date.UTC(2026, 0, 1, 9), source: 'X' });
    expect(parseFixedTime('2026-01-01T09:00:00+02:00', 'X').iso).toBe('2026-01-01T07:00:00.000Z');
    expect(parseFixedTime('2026-01-01T09:00:00.250-0130', 'X').iso).toBe('2026-01-01T10:30:00.250Z');
    expect(parseFixedTime(' 2026-06-30 23:59Z ', 'X').iso).toBe('2026-06-30T23:59:00.000Z');
  });

  test.each(['tomorrow', '2026-01-01', '2026-01-01T09:00:00', '2026-02-31T00:00:00Z', '2026-01-01T24:00:00Z', '1767258000000', ''])(
    'refuses %p, naming the setting and the rule',
    (value) => {
      expect(() => parseFixedTime(value, 'DESIGN_PLAYBOOK_FIXED_TIME')).toThrow(
        `DESIGN_PLAYBOOK_FIXED_TIME must be an ISO 8601 instant with a date, a time and an offset, such as 2026-01-01T09:00:00Z or 2026-01-01T09:00:00+02:00 (got '${value}')`,
      );
    },
  );

  test('--fixed-time outranks the environment; unset or blank means the real date', () => {
    const env = { DESIGN_PLAYBOOK_FIXED_TIME: '2026-01-01T00:00:00Z' };
    expect(fixedTime({ fixedTime: '2027-01-01T00:00:00Z' }, env)?.source).toBe('--fixed-time');
    expect(fixedTime({}, env)).toEqual({ iso: '2026-01-01T00:00:00.000Z', epochMs: Date.UTC(2026, 0, 1), source: 'DESIGN_PLAYBOOK_FIXED_TIME' });
    expect(fixedTime({}, {})).toBeNull();
    expect(fixedTime({}, { DESIGN_PLAYBOOK_FIXED_TIME: '  ' })).toBeNull();
  });
});
