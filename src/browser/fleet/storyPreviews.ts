/**
 * The Storybook previews a launched browser keeps loaded for `stories --run`
 * (../page/storySwitch.ts owns what may be switched into one; this module
 * owns how many there are and who has which):
 *
 * - idle ones, oldest first, at most the parallel limit: a capture of their
 *   variant takes one (take), and gives it back after (release, `keep`);
 * - per variant, previews loaded, in use or being loaded are counted: a
 *   capture that finds none idle waits for the load under way (loading), or,
 *   when its variant already has as many previews as the machine has cores
 *   (perVariantLimit), for one of them to be given back (freed). A fresh
 *   load costs several switched stories' time and CPU, so a busy preview is
 *   waited for rather than another loaded where no core is free to load it.
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import * as os from 'os';
import { STORY_PREVIEW_MAX_STORIES, type PreviewState } from '../page/storySwitch';

/** A story's page kept loaded after its capture, for the next story of its variant to be switched into. */
export interface StoryPreview<Prepared extends { context: BrowserContext; page: Page }> {
  /** The variant it serves (storySwitchKey). */
  key: string;
  browser: Browser;
  prepared: Prepared;
  /** What its fresh load left outside the story's root (previewState): a switched story must leave the same. */
  state: PreviewState;
  /** The stories it has shown, its fresh load's included. */
  stories: number;
}

/** What the store asks of the browser session that holds it. */
export interface StoryPreviewHost {
  /** The browser captures run in now: a preview of any other is closed, never handed out. */
  currentBrowser(): Browser | null;
  /** Whether a preview may be kept idle now (a launched browser, not shutting down). */
  mayKeep(): boolean;
  /** Captures at once (--parallel): the most idle previews kept. */
  parallel(): number;
  /** Closes a preview's context (bounded; the browser disposes it even when its renderer hangs). */
  close(context: BrowserContext): void;
}

/** A promise settled by whoever calls `fire`, made again for the next wait. */
class Signal {
  private pending: { promise: Promise<void>; resolve: () => void } | null = null;

  wait(): Promise<void> {
    if (!this.pending) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.pending = { promise, resolve };
    }
    return this.pending.promise;
  }

  fire(): void {
    const pending = this.pending;
    this.pending = null;
    pending?.resolve();
  }
}

/**
 * Previews one variant may have at once: one per core, within the parallel
 * limit. Past that a capture waits for a busy preview (a switched story
 * takes a fraction of a fresh load) rather than load another on a core
 * another preview's stories already use.
 */
export function perVariantLimit(parallel: number, cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(parallel, cores));
}

export class StoryPreviewStore<Prepared extends { context: BrowserContext; page: Page }> {
  private readonly idle: StoryPreview<Prepared>[] = [];
  /** Fresh loads under way, by variant: a capture of the variant that finds none idle waits for it. */
  private readonly loads = new Map<string, Signal>();
  /** Previews per variant: idle, in use or being loaded. */
  private readonly live = new Map<string, number>();
  /** Previews handed out (or being loaded) and not yet given back. */
  private inUse = 0;
  /** Fired whenever a preview is given back (kept idle or closed). */
  private readonly freedSignal = new Signal();

  constructor(private readonly host: StoryPreviewHost) {}

  /** An idle preview of `key` on `browser`, taken (null when none is: the capture loads its own). */
  take(browser: Browser, key: string): StoryPreview<Prepared> | null {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const preview = this.idle[i];
      if (preview.browser !== browser || !browser.connected || preview.prepared.page.isClosed()) {
        this.idle.splice(i, 1);
        this.closeOne(preview);
      } else if (preview.key === key) {
        this.idle.splice(i, 1);
        this.inUse++;
        return preview;
      }
    }
    return null;
  }

  /** Settles when the fresh load of a `key` preview under way ends (kept or not); null when none is under way. */
  loading(key: string): Promise<void> | null {
    return this.loads.get(key)?.wait() ?? null;
  }

  /** Whether `key` has as many previews (idle, in use, loading) as it may: a capture then waits for one (freed). */
  full(key: string): boolean {
    return (this.live.get(key) ?? 0) >= perVariantLimit(this.host.parallel());
  }

  /** Settles when a preview is next given back, kept or closed. */
  freed(): Promise<void> {
    return this.freedSignal.wait();
  }

  /**
   * A capture loads a `key` preview (it may leave its page as one). Returns
   * whether it is the variant's load under way that others wait for
   * (loading); it says so again when it gives the page back (release's `loaded`).
   */
  hold(key: string): boolean {
    this.inUse++;
    this.live.set(key, (this.live.get(key) ?? 0) + 1);
    if (this.loads.has(key)) return false;
    this.loads.set(key, new Signal());
    return true;
  }

  /**
   * A capture of `key` is done with the preview it took or loaded: `kept` is
   * the preview to keep idle for the next story of the variant, or null (it
   * is closed, or none was loaded); `closed` the one it had taken and now
   * leaves. `loaded`: it was the variant's load others waited for.
   */
  release(key: string, outcome: { kept: StoryPreview<Prepared> | null; closed?: StoryPreview<Prepared> | null; loaded: boolean }): void {
    this.inUse = Math.max(0, this.inUse - 1);
    if (outcome.loaded) {
      const load = this.loads.get(key);
      this.loads.delete(key);
      // Told once the preview is among the idle ones (or closed).
      if (load) queueMicrotask(() => load.fire());
    }
    if (outcome.closed) this.host.close(outcome.closed.prepared.context);
    const kept = outcome.kept;
    if (!kept) return this.gone(key);
    if (kept.stories >= STORY_PREVIEW_MAX_STORIES || kept.browser !== this.host.currentBrowser() || !kept.browser.connected || !this.host.mayKeep()) {
      this.closeOne(kept);
      return;
    }
    this.idle.push(kept);
    this.freedSignal.fire();
    while (this.idle.length > Math.max(1, this.host.parallel())) this.closeOne(this.idle.shift()!);
  }

  /** Whether any preview is idle or in use (no spare page is prepared meanwhile: it would go unused). */
  busy(): boolean {
    return this.idle.length > 0 || this.inUse > 0;
  }

  /** The previews kept idle now, oldest first (diagnostics and tests). */
  idleOnes(): readonly StoryPreview<Prepared>[] {
    return [...this.idle];
  }

  /** Forgets the idle ones: their contexts go with the browser (shutdown). */
  forgetIdle(): void {
    for (const preview of this.idle) this.gone(preview.key);
    this.idle.length = 0;
  }

  private closeOne(preview: StoryPreview<Prepared>): void {
    this.host.close(preview.prepared.context);
    this.gone(preview.key);
  }

  private gone(key: string): void {
    const left = (this.live.get(key) ?? 1) - 1;
    if (left > 0) this.live.set(key, left);
    else this.live.delete(key);
    this.freedSignal.fire();
  }
}
