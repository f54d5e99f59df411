import type { CdpSession } from '../types';
import type { TraceClock } from './clock';
import type { ActionPhase, Box, FrameSnapshot, NodeSnapshot } from './format';
import { SERIALIZE_FRAME_SOURCE } from './snapshotScript';

/** What the in-page serializer returns (see snapshotScript.ts). */
interface SerializedFrame {
  html: NodeSnapshot;
  doctype?: string;
  frameUrl: string;
  viewport: { width: number; height: number };
  targetBox: Box | null;
  stylesheets: { url: string; text?: string }[];
}

export interface CapturedSnapshot {
  snapshot: FrameSnapshot;
  targetBox?: Box;
  /** Linked stylesheets the network log has no body for, with their CSSOM text. */
  unrecordedStylesheets: { url: string; text: string }[];
}

const WORLD_NAME = '__evidence_trace_snapshot__';

/**
 * Takes DOM snapshots of the main frame. The serializer runs in an isolated
 * world so page scripts that patch globals (Array, JSON, querySelector)
 * cannot change what it sees; the world is recreated after navigations.
 */
export class Snapshotter {
  private contextId: number | undefined;

  constructor(
    private readonly session: CdpSession,
    private readonly clock: TraceClock,
    private readonly pageId: string,
    private readonly mainFrameCdpId: string,
    private readonly frameId: string,
  ) {}

  /** Forget the isolated world; the next capture creates a fresh one. */
  invalidate(): void {
    this.contextId = undefined;
  }

  async capture(
    callId: string,
    phase: ActionPhase,
    opts: { targetSelector?: string; knownUrls: string[] },
  ): Promise<CapturedSnapshot> {
    const started = this.clock.now();
    const serialized = await this.evaluate({ targetSelector: opts.targetSelector, knownUrls: opts.knownUrls });
    const timestamp = this.clock.now();
    const snapshot: FrameSnapshot = {
      callId,
      phase,
      pageId: this.pageId,
      frameId: this.frameId,
      frameUrl: serialized.frameUrl,
      doctype: serialized.doctype,
      html: serialized.html,
      viewport: serialized.viewport,
      timestamp,
      wallTime: Date.now(),
      collectionTime: Math.round((timestamp - started) * 1000) / 1000,
      resourceOverrides: [],
      isMainFrame: true,
    };
    return {
      snapshot,
      targetBox: serialized.targetBox ?? undefined,
      unrecordedStylesheets: serialized.stylesheets.filter(
        (s): s is { url: string; text: string } => typeof s.text === 'string',
      ),
    };
  }

  private async evaluate(arg: unknown): Promise<SerializedFrame> {
    const expression = `(${SERIALIZE_FRAME_SOURCE})(${JSON.stringify(arg)})`;
    for (let attempt = 0; ; attempt++) {
      const contextId = await this.worldContext();
      try {
        const reply = await this.session.send('Runtime.evaluate', {
          expression,
          contextId,
          returnByValue: true,
          awaitPromise: false,
        });
        if (reply.exceptionDetails) {
          const text = reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text;
          throw new Error(`DOM snapshot script failed: ${text}`);
        }
        return JSON.parse(reply.result.value as string) as SerializedFrame;
      } catch (error) {
        // A navigation destroys the world between creation and use; retry once.
        this.contextId = undefined;
        if (attempt >= 1 || !/context/i.test(String((error as Error).message))) throw error;
      }
    }
  }

  private async worldContext(): Promise<number> {
    if (this.contextId === undefined) {
      const reply = await this.session.send('Page.createIsolatedWorld', {
        frameId: this.mainFrameCdpId,
        worldName: WORLD_NAME,
        grantUniveralAccess: true,
      });
      this.contextId = reply.executionContextId as number;
    }
    return this.contextId;
  }
}
