import type { CdpHandlers, CdpSession } from '../types';
import type { TraceClock } from './clock';
import type { ScreencastFrameEvent } from './format';
import type { ResourceStore } from './resourceStore';

/** Frames are scaled to fit this box, as Playwright's trace screencast does. */
const MAX_FRAME_SIZE = 800;
const JPEG_QUALITY = 70;

/**
 * The film strip: JPEG frames from CDP's screencast (sent only when the page
 * repaints), each acknowledged at once so Chromium keeps sending. The strip
 * always ends on a frame after the last call: when the page painted nothing
 * after it, its newest frame is what the screen still shows and is placed
 * again at the end (same bytes, no screenshot: a viewport screenshot costs a
 * redraw and a readback, ~40 ms); a frame still on its way when the
 * screencast stops joins after it. Only a page that never painted is shot.
 */
export class Screencast {
  private running = false;
  /** Trace time of the newest frame in the strip (-Infinity before the first). */
  private lastFrameAt = -Infinity;
  /** The newest frame (its stored file and size), to end the strip on when nothing painted since. */
  private newest: { file: string; width: number; height: number } | null = null;

  constructor(
    private readonly session: CdpSession,
    private readonly clock: TraceClock,
    private readonly store: ResourceStore,
    private readonly pageId: string,
    private readonly emit: (event: ScreencastFrameEvent) => void,
  ) {}

  readonly handlers: CdpHandlers = {
    'Page.screencastFrame': (p) => this.onFrame(p),
  };

  async start(): Promise<void> {
    await this.session.send('Page.startScreencast', {
      format: 'jpeg',
      quality: JPEG_QUALITY,
      maxWidth: MAX_FRAME_SIZE,
      maxHeight: MAX_FRAME_SIZE,
      everyNthFrame: 1,
    });
    this.running = true;
  }

  /** Frames sent before the stop (a session answers in order) still join the strip. */
  async stop(): Promise<void> {
    if (!this.running) return;
    await this.session.send('Page.stopScreencast').catch(() => undefined);
    this.running = false;
  }

  /** Whether the strip holds a frame the page painted after trace time `time`. */
  hasFrameSince(time: number): boolean {
    return this.lastFrameAt > time;
  }

  /**
   * Ends the strip on the final state: the newest frame again at this time
   * (nothing painted since it), or, for a page that has not painted a frame
   * yet, a screenshot of the current viewport.
   */
  async endStrip(viewport: { width: number; height: number }): Promise<void> {
    const newest = this.newest;
    if (newest) {
      this.lastFrameAt = this.clock.now();
      this.emit({ type: 'screencast-frame', pageId: this.pageId, ...newest, timestamp: this.lastFrameAt, frameSwapWallTime: Date.now() });
      return;
    }
    const scale = Math.min(1, MAX_FRAME_SIZE / Math.max(viewport.width, viewport.height));
    const reply = await this.session.send('Page.captureScreenshot', {
      format: 'jpeg',
      quality: JPEG_QUALITY,
      clip: { x: 0, y: 0, width: viewport.width, height: viewport.height, scale },
    });
    this.add(Buffer.from(reply.data, 'base64'), viewport.width, viewport.height, Date.now());
  }

  private onFrame(p: any): void {
    this.session.send('Page.screencastFrameAck', { sessionId: p.sessionId }).catch(() => undefined);
    if (!this.running) return;
    const meta = p.metadata ?? {};
    const wallTime = typeof meta.timestamp === 'number' ? meta.timestamp * 1000 : Date.now();
    this.add(Buffer.from(p.data, 'base64'), Math.round(meta.deviceWidth ?? 0), Math.round(meta.deviceHeight ?? 0), wallTime);
  }

  private add(jpeg: Buffer, width: number, height: number, wallTime: number): void {
    const timestamp = this.clock.now();
    this.lastFrameAt = timestamp;
    this.newest = { file: this.store.put(jpeg, 'image/jpeg'), width, height };
    this.emit({
      type: 'screencast-frame',
      pageId: this.pageId,
      file: this.newest.file,
      width,
      height,
      timestamp,
      frameSwapWallTime: wallTime,
    });
  }
}
