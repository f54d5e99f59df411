/**
 * Installs the virtual clock on one window and returns the controls the
 * capture drives it with. Each callback runs in a real task of its own
 * (a MessageChannel message), so the page's promises and real events run
 * between callbacks as they would between timer tasks.
 */
import { Scheduler } from './scheduler';
import { seededRandom } from './random';
import type { VirtualClockConfig } from './config';

export interface AdvanceReport {
  /** Virtual ms since this document's clock started. */
  now: number;
  /** Timers and frame callbacks still queued. */
  pending: number;
}

export interface ClockControls {
  /** Moves virtual time forward by `ms`, running what falls due in order. */
  advance(ms: number): Promise<AdvanceReport>;
  /** Pauses every audio and video element at its start; resolves once the frames are seeked (bounded). */
  stillMedia(): Promise<void>;
  /** advance(ms), then stillMedia(): the settle after load and after the actions, in one call. */
  settle(ms: number): Promise<AdvanceReport>;
  now(): number;
}

/** Guard against a page that queues work at one instant without end. */
const MAX_CALLBACKS_PER_ADVANCE = 100_000;
/** Real-time bound on waiting for media to show their first frame. */
const MEDIA_SEEK_BUDGET_MS = 2_000;
/** What an idle callback is told it has left, ms; shrinks per call so a "while time remains" loop ends. */
const IDLE_BUDGET_MS = 50;

type Callback = (...args: unknown[]) => unknown;

export function installControls(win: Window & typeof globalThis, config: VirtualClockConfig): ClockControls {
  const realSetTimeout = win.setTimeout.bind(win);
  const realClearTimeout = win.clearTimeout.bind(win);
  const RealDate = win.Date;
  const RealMessageChannel = win.MessageChannel;

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
  const setTimeoutVirtual = (handler: unknown, delay?: number, ...args: unknown[]) => scheduler.schedule(delay ?? 0, asCallback(handler, args), false);
  const setIntervalVirtual = (handler: unknown, delay?: number, ...args: unknown[]) => scheduler.schedule(delay ?? 0, asCallback(handler, args), true);
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

  if (config.randomSeed !== null) define(win.Math, 'random', seededRandom(config.randomSeed));

  // Web Animations (CSS ones are already stopped by the freeze sheet) and SVG animations follow virtual time.
  const animationStarts = new WeakMap<Animation, number>();
  const elementPrototype = win.Element?.prototype;
  if (elementPrototype && typeof elementPrototype.animate === 'function') {
    const animate = elementPrototype.animate;
    define(elementPrototype, 'animate', function (this: Element, ...args: Parameters<Element['animate']>) {
      const animation = animate.apply(this, args);
      animationStarts.set(animation, scheduler.now);
      animation.pause();
      animation.currentTime = 0;
      return animation;
    });
  }
  const syncAnimations = () => {
    const doc = win.document;
    if (!doc) return;
    if (typeof doc.getAnimations === 'function') {
      for (const animation of doc.getAnimations()) {
        let started = animationStarts.get(animation);
        if (started === undefined) {
          // Not started through animate(): it starts now, on the virtual clock (its real progress so far is a race).
          if (animation.playState !== 'running') continue;
          started = scheduler.now;
          animationStarts.set(animation, started);
          animation.pause();
        }
        animation.currentTime = (scheduler.now - started) * animation.playbackRate;
      }
    }
    for (const svg of Array.from(doc.querySelectorAll('svg'))) {
      if (svg.ownerSVGElement) continue;
      svg.pauseAnimations();
      svg.setCurrentTime(scheduler.now / 1000);
    }
  };

  // Media do not play on a virtual clock: autoplay is taken off every element before it could start
  // (a mutation observer runs before any media data arrives), and play() is refused as an autoplay policy would.
  const MediaElement = win.HTMLMediaElement;
  if (MediaElement) {
    define(MediaElement.prototype, 'play', function (this: HTMLMediaElement) {
      return Promise.reject(new DOMException('playback is held on the capture\'s virtual clock', 'NotAllowedError'));
    });
    const stopAutoplay = (root: ParentNode) => {
      for (const media of Array.from(root.querySelectorAll('video[autoplay], audio[autoplay]')) as HTMLMediaElement[]) media.autoplay = false;
    };
    new win.MutationObserver((records) => {
      for (const record of records) {
        for (const node of Array.from(record.addedNodes)) {
          if (node instanceof MediaElement) node.autoplay = false;
          if ((node as ParentNode).querySelectorAll) stopAutoplay(node as ParentNode);
        }
      }
    }).observe(win.document, { childList: true, subtree: true });
  }

  let queue: Promise<unknown> = Promise.resolve();
  const advanceNow = async (ms: number): Promise<AdvanceReport> => {
    const target = scheduler.now + Math.max(0, Number(ms) || 0);
    for (let ran = 0; ran < MAX_CALLBACKS_PER_ADVANCE; ) {
      const due = scheduler.peek(target);
      if (!due) break;
      if (due.kind === 'timer') {
        scheduler.now = Math.max(scheduler.now, due.job.due);
        const run = scheduler.take(due.job);
        await inRealTask(run);
        ran++;
      } else {
        scheduler.now = due.time;
        for (const callback of scheduler.takeFrame()) {
          await inRealTask(() => callback(due.time));
          ran++;
        }
      }
    }
    scheduler.now = target;
    syncAnimations();
    return { now: scheduler.now, pending: scheduler.pendingCount() };
  };

  const stillMedia = async (): Promise<void> => {
    const doc = win.document;
    if (!doc) return;
    const settled: Array<Promise<void>> = [];
    for (const media of Array.from(doc.querySelectorAll('video, audio')) as HTMLMediaElement[]) {
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
        typeof video.requestVideoFrameCallback === 'function' ? new Promise<void>((resolve) => video.requestVideoFrameCallback(() => resolve())) : Promise.resolve();
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
    async settle(ms: number) {
      const report = await this.advance(ms);
      await stillMedia();
      return report;
    },
    now: () => scheduler.now,
  };
}

/** Replaces a property the page reads, keeping it writable so a page may still assign its own. */
function define(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
}
