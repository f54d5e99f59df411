/**
 * What a CLI subcommand may use of the program (built in src/app/main.ts):
 * capture through the boundary, the browser flags, and closing what the providers opened.
 */
import type { CaptureResult } from '../contract/result';
import type { BrowserFlags } from '../browser/options';
import type { CaptureProvider } from '../contract/captureProvider';
import type { SecretStore } from '../common/secrets';
import type { CaptureAction } from '../contract/actions';
import type { SignInOutcome, StorageState } from '../contract/storageState';

/** `login --headed`: a visible window, done when it closes or `until` is reached. */
export interface HeadedSignIn {
  until: { url?: string; selector?: string };
}

/**
 * How the bin loaded the program (src/bin.ts; doctor reports it): dist/'s
 * one-file bundle with or without its code cache (the fast start), the
 * compiled modules and why the bundle was not used, or a one-file build
 * that is the whole program (plugin/server.cjs).
 */
export type ProgramStart =
  { from: 'bundle'; file: string; cache: 'used' | 'rejected' | 'none' } | { from: 'modules'; why: string } | { from: 'one file'; file: string };

export interface Program {
  /** The boundary (executeCapturePlan) over the program's active provider. */
  executeCapturePlan(args: unknown): Promise<CaptureResult>;
  /** The browser flags given on the command line. */
  readonly browserFlags: BrowserFlags;
  /** Replaces the browser flags (before the first capture: the batch runner's --parallel). */
  configureBrowser(flags: BrowserFlags): void;
  /** The provider that captures (the last registered, else the bundled one). */
  activeProvider(): CaptureProvider;
  /** The secrets file's store (--secrets / DESIGN_PLAYBOOK_SECRETS); undefined when none is configured. */
  readonly secrets?: SecretStore;
  /** Closes the browser the program's providers opened. */
  close(): Promise<void>;
  /** How the bin loaded the program; absent when the program was not started by the bin. */
  readonly start?: ProgramStart;
  /** `login`'s browser half: loads `url` (from `startState` when given), runs `actions` headless, answers the context's state (src/browser/capture/signIn.ts). */
  signIn(url: string, actions: CaptureAction[], startState?: StorageState, headed?: HeadedSignIn): Promise<SignInOutcome>;
}
