/**
 * How a call is described to the viewer. The viewer titles a call from its
 * `class.method` and params (Frame.click + selector renders as
 * `Click locator('#submit')`), so each capture action is recorded as the
 * Playwright API call that does the same thing, with the params that call
 * would take. Which call each action is, is the action table's
 * (src/contract/actions.ts, `trace`); the recorder writes what it is given.
 */

export interface TraceCall {
  class: 'Frame' | 'Page';
  method: string;
  params: Record<string, unknown>;
  /** The selector whose element the "action" snapshot highlights: the one the action used. */
  target?: string;
  /** Whether the action acts on an element (gets an input event and snapshot). */
  isInput: boolean;
  /** Whether the input event's point is the target's centre when no point is given (a click, a hover: where the mouse went). */
  pointsAtTarget?: boolean;
}
