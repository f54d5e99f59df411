/**
 * What a CLI subcommand may use of the program (built in src/app/main.ts):
 * capture through the boundary, the browser flags, and closing what the providers opened.
 */
import type { CaptureResult } from '../contract/result';
import type { BrowserFlags } from '../browser/options';
import type { CaptureProvider } from '../contract/captureProvider';

export interface Program {
  /** The boundary (executeCapturePlan) over the program's active provider. */
  executeCapturePlan(args: unknown): Promise<CaptureResult>;
  /** The browser flags given on the command line. */
  readonly browserFlags: BrowserFlags;
  /** Replaces the browser flags (before the first capture: the batch runner's --parallel). */
  configureBrowser(flags: BrowserFlags): void;
  /** The provider that captures (the last registered, else the bundled one). */
  activeProvider(): CaptureProvider;
  /** Closes the browser the program's providers opened. */
  close(): Promise<void>;
}
