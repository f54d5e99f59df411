/**
 * Installs the virtual clock on one window and returns the controls the
 * capture drives it with. Each callback runs in a real task of its own
 * (a MessageChannel message), so the page's promises and real events run
 * between callbacks as they would between timer tasks.
 *
 * `run` is the settle's in-page half: it moves time in frame steps (each
 * ending on a multiple of the frame length, so every capture looks at the
 * page at the same instants) until the page is at rest (clock/activity.ts)
 * or the bound, and hands control back early when the capture asks it to
 * (a request started: time must then follow the wall clock, which only the
 * capture can see) or after `chunkMs`.
 */
import { Scheduler } from './scheduler';
import { seededRandom } from './random';
import { installAnimationSync } from './animations';
import { installShadowRoots } from './shadowRoots';
import { activityOf, atRest, busyTimer, restartsQuiet, type Activity } from './activity';
import type { TimerJob } from './scheduler';
import type { VirtualClockConfig } from './config';

export interface AdvanceReport {
  /** Virtual ms since this document's clock started. */
  now: number;
  /** Timers and frame callbacks still queued. */
  pending: number;
}

export interface RunOptions {
  /** The virtual instant the settle stops at; null on its first call, which sets it to now + budgetMs. */
  until: number | null;
  budgetMs: number;
  /** A request of the page is in flight (the capture sees them): the page is not quiet. */
  held: boolean;
  /**
   * 'fast': step until at rest, the bound, `chunkMs` of virtual time, or an
   * interrupt; 'step': one frame step and no more (the capture paces these to
   * the wall clock while a request is in flight).
   */
  mode: 'fast' | 'step';
  chunkMs: number;
}

export interface RunReport {
  now: number;
  /** The settle's bound (the `until` to pass on the next call). */
  until: number;
  /** Virtual ms this call moved. */
  moved: number;
  /** 'rest': nothing would move; 'bound': time reached `until` with the page still busy; 'busy': handed back early. */
  state: 'rest' | 'bound' | 'busy';
  activity: Activity;
}

export interface ClockControls {
  /** Moves virtual time forward by `ms`, running what falls due in order. */
  advance(ms: number): Promise<AdvanceReport>;
  /** Pauses every audio and video element at its start; resolves once the frames are seeked (bounded). */
  stillMedia(): Promise<void>;
  /** The settle after load and after the actions; media are stilled when it ends at rest or at the bound. */
  run(options: RunOptions): Promise<RunReport>;
  /** Makes a `run` under way hand back at its next step (the capture saw a request start). */
  interrupt(): void;
  /** Adopts the freeze's sheet (`css`) in the document and every shadow root, now and for roots made later; false where the document cannot adopt sheets. */
  freeze(css: string): boolean;
  /** Takes the freeze's sheet out of force until `freeze` is called again (a story switched to plays with its animations, as on a fresh load). */
  thaw(): void;
  /**
   * Page time starts again, as in a new document: Date reads from
   * `startTime`, performance.now and frames count from the last frame
   * boundary, what is queued keeps its delay, and a seeded Math.random starts
   * its sequence again (src/browser/page/storySwitch.ts, before a story is
   * switched to in a preview kept loaded).
   */
  restart(startTime: number): void;
  /** Takes a shadow root no page script could show (a closed one declared in the HTML, found over the protocol). */
  shadowRoot(root: ShadowRoot): void;
  now(): number;
}

/** Guard against a page that queues work at one instant without end. */
const MAX_CALLBACKS_PER_ADVANCE = 100_000;
/** Real-time bound on waiting for media to show their first frame. */
const MEDIA_SEEK_BUDGET_MS = 2_000;
/** What an idle callback is told it has left, ms; shrinks per call so a "while time remains" loop ends. */
const IDLE_BUDGET_MS = 50;
/** Real-time bound on waiting for the browser's own next frame (a page that is not rendered has none). */
const REAL_FRAME_BUDGET_MS = 50;

type Callback = (...args: unknown[]) => unknown;

export function installControls(win: Window & typeof globalThis, config: VirtualClockConfig): ClockControls {
  const realSetTimeout = win.setTimeout.bind(win);
  const realRequestAnimationFrame = typeof win.requestAnimationFrame === 'function' ? win.requestAnimationFrame.bind(win) : null;
  const taskScheduler = (win as unknown as { scheduler?: { postTask?: (task: () => void, options: { priority: string }) => Promise<void> } }).scheduler;
  const realPostTask = typeof taskScheduler?.postTask === 'function' ? taskScheduler.postTask.bind(taskScheduler) : null;
  const realClearTimeout = win.clearTimeout.bind(win);
  const RealDate = win.Date;
  const RealMessageChannel = win.MessageChannel;
  // Taken before any page script runs: a page (or a library such as zone.js) may wrap its own.
  const RealMutationObserver = win.MutationObserver;
  const rule = config.rest;

  // Child frames of the same origin start at their parent's virtual instant.
  let startAt = 0;
  try {
    const parentControls = win.parent !== win ? (win.parent as unknown as Record<string, ClockControls | undefined>).__designPlaybookClock : undefined;
    if (parentControls) startAt = parentControls.now();
  } catch {
    // Cross-origin parent: this frame's clock starts at 0.
  }
  const scheduler = new Scheduler(config.frameMs, startAt);
  const epoch = () => config.startTime + scheduler.now;

  // One real task per callback.
  const channel = new RealMessageChannel();
  const tasks: Array<() => void> = [];
  channel.port1.onmessage = () => tasks.shift()?.();
  const inRealTask = (fn: () => void) =>
    new Promise<void>((resolve) => {
      tasks.push(() => {
        try {
          fn();
        } finally {
          resolve();
        }
      });
      channel.port2.postMessage(null);
    });

  const asCallback = (handler: unknown, args: unknown[]): (() => void) => {
    if (typeof handler === 'function') return () => void (handler as Callback).apply(win, args);
    const code = String(handler);
    return () => void (0, win.eval)(code);
  };

  // Timers.
  const setTimeoutVirtual = (handler: unknown, delay?: number, ...args: unknown[]) => scheduler.schedule(delay ?? 0, asCallback(handler, args), false, handler);
  const setIntervalVirtual = (handler: unknown, delay?: number, ...args: unknown[]) => scheduler.schedule(delay ?? 0, asCallback(handler, args), true, handler);
  const clearVirtual = (id?: unknown) => scheduler.cancel(id);
  define(win, 'setTimeout', setTimeoutVirtual);
  define(win, 'setInterval', setIntervalVirtual);
  define(win, 'clearTimeout', clearVirtual);
  define(win, 'clearInterval', clearVirtual);
  define(win, 'requestAnimationFrame', (callback: (time: number) => void) => scheduler.requestFrame((time) => callback.call(win, time)));
  define(win, 'cancelAnimationFrame', clearVirtual);
  if (typeof win.requestIdleCallback === 'function') {
    define(win, 'requestIdleCallback', (callback: IdleRequestCallback) => {
      let left = IDLE_BUDGET_MS;
      const deadline = { didTimeout: false, timeRemaining: () => Math.max(0, left--) };
      return scheduler.schedule(1, () => callback.call(win, deadline as IdleDeadline), false);
    });
    define(win, 'cancelIdleCallback', clearVirtual);
  }

  // Date, performance, the document timeline.
  function VirtualDate(this: unknown, ...args: unknown[]): unknown {
    if (!new.target) return new RealDate(epoch()).toString();
    return Reflect.construct(RealDate, args.length ? args : [epoch()], new.target);
  }
  Object.setPrototypeOf(VirtualDate, RealDate);
  VirtualDate.prototype = RealDate.prototype;
  Object.defineProperty(VirtualDate, 'now', { value: () => epoch(), writable: true, configurable: true });
  Object.defineProperty(VirtualDate, 'name', { value: 'Date' });
  Object.defineProperty(VirtualDate, 'length', { value: 7 });
  define(win, 'Date', VirtualDate);
  define(win.performance, 'now', () => scheduler.now);
  Object.defineProperty(win.performance, 'timeOrigin', { get: () => config.startTime, configurable: true });
  const timeline = win.document?.timeline;
  if (timeline) Object.defineProperty(timeline, 'currentTime', { get: () => scheduler.now, configurable: true });
  // Intl formatters read the real clock when given no date.
  const intlFormat = Object.getOwnPropertyDescriptor(win.Intl.DateTimeFormat.prototype, 'format');
  if (intlFormat?.get) {
    const getFormat = intlFormat.get;
    Object.defineProperty(win.Intl.DateTimeFormat.prototype, 'format', {
      configurable: true,
      get(this: Intl.DateTimeFormat) {
        const format = getFormat.call(this) as (date?: Date | number) => string;
        return (date?: Date | number) => format(date === undefined ? epoch() : date);
      },
    });
  }
  const formatToParts = win.Intl.DateTimeFormat.prototype.formatToParts;
  define(win.Intl.DateTimeFormat.prototype, 'formatToParts', function (this: Intl.DateTimeFormat, date?: Date | number) {
    return formatToParts.call(this, date === undefined ? epoch() : date);
  });

  const seedRandom = () => {
    if (config.randomSeed !== null) define(win.Math, 'random', seededRandom(config.randomSeed));
  };
  seedRandom();

  // Every shadow root, for the freeze sheet, the change watch, the animations and the media.
  const shadows = installShadowRoots(win, define);
  // Web Animations (CSS ones are already stopped by the freeze sheet) and SVG animations follow virtual time.
  const animations = installAnimationSync(win, scheduler, define, shadows);

  // Media do not play on a virtual clock: autoplay is taken off every element before it could start
  // (a mutation observer runs before any media data arrives), and play() is refused as an autoplay policy would.
  const MediaElement = win.HTMLMediaElement;
  if (MediaElement) {
    define(MediaElement.prototype, 'play', function (this: HTMLMediaElement) {
      return Promise.reject(new DOMException("playback is held on the capture's virtual clock", 'NotAllowedError'));
    });
    const stopAutoplay = (root: ParentNode) => {
      for (const media of Array.from(root.querySelectorAll('video[autoplay], audio[autoplay]')) as HTMLMediaElement[]) media.autoplay = false;
    };
    const autoplayWatch = new win.MutationObserver((records) => {
      for (const record of records) {
        for (const node of Array.from(record.addedNodes)) {
          if (node instanceof MediaElement) node.autoplay = false;
          if ((node as ParentNode).querySelectorAll) stopAutoplay(node as ParentNode);
        }
      }
    });
    autoplayWatch.observe(win.document, { childList: true, subtree: true });
    shadows.onRoot((root) => {
      stopAutoplay(root);
      autoplayWatch.observe(root, { childList: true, subtree: true });
    });
  }

  // What changed the page, and when: the rest rule's quiet window counts from the last change.
  // Watched from the first time the capture moves time (before that, time stood at the load's instant).
  let quietSince = scheduler.now;
  /** The timer whose callback (and the microtasks it queued) is running, and whether it changed the page. */
  let attributing: { job: TimerJob; changed: boolean } | null = null;
  const noteChanges = (count: number) => {
    if (!count) return;
    if (attributing) attributing.changed = true;
    if (restartsQuiet(attributing ? scheduler.sourceOf(attributing.job) : null, rule.horizonMs)) quietSince = scheduler.now;
  };
  let changes: MutationObserver | null = null;
  const changeOptions: MutationObserverInit = { childList: true, subtree: true, attributes: true, characterData: true };
  const watchChanges = () => {
    if (changes || !win.document) return;
    changes = new RealMutationObserver((records) => noteChanges(records.length));
    changes.observe(win.document, changeOptions);
    // A shadow tree's changes count as the document's: each root is watched too, from when it is known.
    for (const root of shadows.all()) changes.observe(root, changeOptions);
  };
  shadows.onRoot((root) => changes?.observe(root, changeOptions));
  const runTimer = async (job: TimerJob) => {
    const run = scheduler.take(job);
    attributing = { job, changed: false };
    try {
      await inRealTask(run);
      noteChanges(changes?.takeRecords().length ?? 0);
      const source = scheduler.sourceOf(job);
      if (source) source.quietFirings = attributing.changed ? 0 : source.quietFirings + 1;
    } finally {
      attributing = null;
      scheduler.ran(job);
    }
  };

  let queue: Promise<unknown> = Promise.resolve();
  /**
   * Runs what falls due up to now + ms, in order (what falls due at that
   * instant too, unless not `inclusive`), then sets the animations to that instant.
   */
  const moveBy = async (ms: number, inclusive = true) => {
    watchChanges();
    const target = scheduler.now + Math.max(0, Number(ms) || 0);
    for (let ran = 0; ran < MAX_CALLBACKS_PER_ADVANCE;) {
      const due = scheduler.peek(target, inclusive);
      if (!due) break;
      if (due.kind === 'timer') {
        scheduler.now = Math.max(scheduler.now, due.job.due);
        await runTimer(due.job);
        ran++;
      } else {
        scheduler.now = due.time;
        for (const callback of scheduler.takeFrame()) {
          await inRealTask(() => callback(due.time));
          noteChanges(changes?.takeRecords().length ?? 0);
          ran++;
        }
      }
    }
    scheduler.now = target;
    return animations.sync();
  };
  const advanceNow = async (ms: number): Promise<AdvanceReport> => {
    await moveBy(ms);
    return { now: scheduler.now, pending: scheduler.pendingCount() };
  };

  // The settle.
  let interrupted = false;
  /** One frame step: to the next multiple of the frame length, never past `until`. */
  const step = (until: number) => {
    const boundary = (Math.floor(scheduler.now / config.frameMs) + 1) * config.frameMs;
    return moveBy(Math.max(0, Math.min(until, boundary) - scheduler.now));
  };
  /**
   * Resolves after the browser's own next frame and the tasks that frame
   * queued: its ResizeObserver and IntersectionObserver callbacks have run (a
   * counter that starts when scrolled into view starts here). A background
   * task runs after the observers' tasks; without one, the frame after.
   */
  const realFrame = () =>
    new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        realClearTimeout(timer);
        resolve();
      };
      const timer = realSetTimeout(finish, REAL_FRAME_BUDGET_MS);
      if (!realRequestAnimationFrame) return;
      realRequestAnimationFrame(() => {
        if (realPostTask) realPostTask(finish, { priority: 'background' }).catch(finish);
        else realRequestAnimationFrame(finish);
      });
    });
  const runNow = async (options: RunOptions): Promise<RunReport> => {
    interrupted = false;
    const started = scheduler.now;
    // A settle starts on a page that just loaded or was just acted on: the window counts from here at the earliest.
    if (options.until === null) quietSince = Math.max(quietSince, started);
    const until = Math.max(started, options.until ?? started + Math.max(0, Number(options.budgetMs) || 0));
    const report = (state: RunReport['state'], activity: Activity): RunReport => ({
      now: scheduler.now,
      until,
      moved: scheduler.now - started,
      state,
      activity,
    });
    const held = () => {
      if (options.held) quietSince = scheduler.now;
    };
    if (options.mode === 'step') {
      // What is due now runs first, then one frame.
      let counts = await moveBy(0);
      if (scheduler.now < until) counts = await step(until);
      held();
      const activity = activityOf(scheduler, counts, rule, quietSince);
      const state = atRest(activity) ? 'rest' : scheduler.now >= until ? 'bound' : 'busy';
      if (scheduler.now >= until) await stillMedia();
      return report(state, activity);
    }
    let counts = animations.sync();
    let activity = activityOf(scheduler, counts, rule, quietSince);
    for (;;) {
      if (atRest(activity)) {
        // At rest by the clock's account: the browser renders once, and it must still be at rest after that.
        // (What falls due at this very instant is left for later: the quiet window ended before it.)
        await realFrame();
        noteChanges(changes?.takeRecords().length ?? 0);
        activity = activityOf(scheduler, animations.sync(), rule, quietSince);
        if (atRest(activity)) {
          await stillMedia();
          return report('rest', activity);
        }
        continue;
      }
      if (scheduler.now >= until) {
        await stillMedia();
        return report('bound', activity);
      }
      const chunkEnd = started + Math.max(0, Number(options.chunkMs) || 0);
      if (interrupted || scheduler.now >= chunkEnd) return report('busy', activity);
      if (activity.frame || activity.finite || activity.endless) {
        // Motion: frame by frame, so it is looked at on the frame grid.
        counts = await step(until);
      } else {
        // Only timers and the quiet window: straight to the busy timer, or to the window's end
        // (the timers due at that instant stay for later), running what falls due on the way.
        const timer = busyTimer(scheduler, rule.horizonMs);
        const quietEnd = quietSince + rule.quietMs;
        const goal = timer ? Math.max(scheduler.now, timer.due) : Math.max(scheduler.now, quietEnd);
        const target = Math.min(goal, until, chunkEnd);
        counts = await moveBy(target - scheduler.now, !(target === quietEnd && !timer));
      }
      activity = activityOf(scheduler, counts, rule, quietSince);
    }
  };

  const stillMedia = async (): Promise<void> => {
    const doc = win.document;
    if (!doc) return;
    const settled: Array<Promise<void>> = [];
    const scopes: ParentNode[] = [doc, ...shadows.connected()];
    for (const media of scopes.flatMap((scope) => Array.from(scope.querySelectorAll('video, audio'))) as HTMLMediaElement[]) {
      media.autoplay = false;
      media.pause();
      settled.push(firstFrame(media));
    }
    if (!settled.length) return;
    let timer = 0;
    await Promise.race([Promise.all(settled), new Promise<void>((resolve) => (timer = realSetTimeout(resolve, MEDIA_SEEK_BUDGET_MS)))]);
    realClearTimeout(timer);
    // The events the pause and the seek queued (timeupdate, pause, seeked) run before the capture.
    await inRealTask(() => undefined);
  };
  /** Resolves once the element shows its frame at 0 s (or has no media to show). */
  const firstFrame = async (media: HTMLMediaElement): Promise<void> => {
    const HAVE_CURRENT_DATA = 2;
    if (media.readyState < HAVE_CURRENT_DATA && !media.error && media.networkState !== media.NETWORK_NO_SOURCE) {
      await new Promise<void>((resolve) => {
        media.addEventListener('loadeddata', () => resolve(), { once: true });
        media.addEventListener('error', () => resolve(), { once: true });
      });
    }
    if (media.readyState >= 1 && (media.currentTime !== 0 || media.seeking)) {
      const seeked = new Promise<void>((resolve) => media.addEventListener('seeked', () => resolve(), { once: true }));
      // 'seeked' can come before the frame at 0 s reaches the screen: a video also waits for that frame to be presented.
      const video = media as HTMLVideoElement;
      const presented =
        typeof video.requestVideoFrameCallback === 'function'
          ? new Promise<void>((resolve) => video.requestVideoFrameCallback(() => resolve()))
          : Promise.resolve();
      media.currentTime = 0;
      await Promise.all([seeked, presented]);
    }
  };

  return {
    advance(ms: number) {
      const run = queue.then(() => advanceNow(ms));
      queue = run.catch(() => undefined);
      return run;
    },
    stillMedia,
    run(options: RunOptions) {
      const run = queue.then(() => runNow(options));
      queue = run.catch(() => undefined);
      return run;
    },
    interrupt() {
      interrupted = true;
    },
    freeze(css: string) {
      shadows.discover();
      return shadows.freeze(css);
    },
    thaw() {
      shadows.thaw();
    },
    restart(startTime: number) {
      const elapsed = Math.floor(scheduler.now / config.frameMs) * config.frameMs;
      scheduler.rebase(elapsed);
      quietSince -= elapsed;
      config.startTime = startTime;
      seedRandom();
    },
    shadowRoot(root: ShadowRoot) {
      shadows.record(root);
    },
    now: () => scheduler.now,
  };
}

/** Replaces a property the page reads, keeping it writable so a page may still assign its own. */
function define(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
}
