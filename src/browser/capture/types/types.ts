/**
 * One module per capture type. A type starts before navigation (the trace
 * must see the page load), may wrap the navigation and each action, and
 * finishes with the artifact's bytes once the page is frozen.
 */
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import type { ProviderPayload } from '../../../contract/captureProvider';
import type { CaptureRequestSnapshot } from '../../../contract/captureContract';
import type { RuntimeFields } from '../../../contract/toolArguments';
import type { ActionWrapper } from '../actionRunner';
import type { SecretStore } from '../../../common/secrets';
import type { CaptureProgress, CaptureStep } from '../progress';

export interface CaptureTypeContext {
  browser: Browser;
  page: Page;
  /** A raw CDP session on the capture's page (for the cdp/ modules). */
  cdp: CDPSession;
  fields: RuntimeFields;
  /** The normalized contract; `design` only on bound calls. */
  request: CaptureRequestSnapshot;
  /** The capture's progress: finish() names a step of its own with it (`the render-token probe`), for crash and overrun messages and progress. */
  progress: CaptureProgress;
  /** The secrets loaded (--secrets): a field holding a value is painted over in a screenshot, masked in a trace. */
  secrets?: SecretStore;
}

/**
 * The artifact's bytes and what the type measured, named as the provider
 * payload names it (the screenshot's render-token face, page facts and element boxes), so
 * the provider returns it without copying field by field.
 */
export type CaptureTypeOutput = { bytes: Buffer } & Pick<ProviderPayload, 'render_tokens' | 'page_facts' | 'element_boxes' | 'warnings'>;

export interface CaptureTypeRun {
  navigate?(url: string, run: () => Promise<void>): Promise<void>;
  wrapAction?: ActionWrapper;
  /**
   * `taken` is called once the page has given what the artifact holds (the
   * shot, the last recorded frame): the reads that come after the capture
   * (observed_state) may start then, alongside what finish() still does
   * (the probe, the archive).
   */
  finish(taken?: () => void): Promise<CaptureTypeOutput>;
  /** Releases what start() set up; safe after finish() and after a failure. */
  dispose(): Promise<void>;
}

export interface CaptureTypeModule {
  /** The steps of its own finish() enters after `capture` (the screenshot's probe), in order: a progress total counts them. */
  readonly steps?: readonly CaptureStep[];
  start(context: CaptureTypeContext): Promise<CaptureTypeRun>;
}
