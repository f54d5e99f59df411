/**
 * The navigations an input action starts (a click on a link, Enter in a
 * form), waited for before the next action, as Playwright's auto-wait does.
 */
import type { CdpEvent, CdpSession } from '../../../cdp/types';
import { ACTION_NAVIGATION_SETTLE_MS, withDeadline } from '../../common/time';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Watches the main frame over raw CDP for navigations an action starts. The
 * browser reports the request (Page.frameRequestedNavigation) before the
 * input that caused it is acknowledged, so none is missed; the wait ends at
 * the new document's DOMContentLoaded, a same-document navigation, or when
 * the frame stops loading (a failed or 204 navigation, a refused download).
 */
export class InputNavigations {
  private pending = false;
  private wake: (() => void) | null = null;
  private readonly handlers: Array<[CdpEvent, (params: any) => void]>;

  private constructor(
    private readonly session: CdpSession,
    private readonly mainFrameId: string,
  ) {
    const arrived = () => {
      this.pending = false;
      this.wake?.();
    };
    const mainOnly = (fn: () => void) => (params: { frameId?: string }) => {
      if (params.frameId === this.mainFrameId) fn();
    };
    this.handlers = [
      ['Page.frameRequestedNavigation', mainOnly(() => (this.pending = true))],
      ['Page.domContentEventFired', () => this.pending && arrived()],
      ['Page.navigatedWithinDocument', mainOnly(arrived)],
      ['Page.frameStoppedLoading', mainOnly(arrived)],
    ];
  }

  static async start(session: CdpSession): Promise<InputNavigations | null> {
    if (typeof session.on !== 'function') return null;
    await session.send('Page.enable');
    const { frameTree } = await session.send('Page.getFrameTree');
    const navigations = new InputNavigations(session, frameTree.frame.id);
    for (const [event, handler] of navigations.handlers) session.on!(event, handler);
    return navigations;
  }

  /**
   * Runs the action; if it started a main-frame navigation, waits for the new
   * document (at most until the action's `deadline`). Answers whether it did.
   */
  async around(act: () => Promise<void>, deadline: number): Promise<boolean> {
    this.pending = false;
    await act();
    await sleep(0);
    if (!this.pending) return false;
    await withDeadline(new Promise<void>((resolve) => (this.wake = resolve)), Math.min(ACTION_NAVIGATION_SETTLE_MS, Math.max(1, deadline - Date.now())), {
      orElse: undefined,
    });
    this.wake = null;
    return true;
  }

  stop(): void {
    for (const [event, handler] of this.handlers) this.session.off?.(event, handler);
  }
}
