/**
 * One module per capture type. A type starts before navigation (the trace
 * must see the page load), may wrap the navigation and each action, and
 * finishes with the artifact's bytes once the page is frozen.
 */
import type { Browser, CDPSession, Page } from 'puppeteer';
import type { ProbePageFacts } from '../../provider';
import type { CaptureJob } from '../bundledProvider';
import type { ActionWrapper } from '../actions';

export interface CaptureTypeContext {
  browser: Browser;
  page: Page;
  /** A raw CDP session on the capture's page (for the cdp/ modules). */
  cdp: CDPSession;
  job: CaptureJob;
}

export interface CaptureTypeOutput {
  bytes: Buffer;
  renderTokens?: unknown;
  pageFacts?: ProbePageFacts;
  warnings?: string[];
}

export interface CaptureTypeRun {
  navigate?(url: string, run: () => Promise<void>): Promise<void>;
  wrapAction?: ActionWrapper;
  finish(): Promise<CaptureTypeOutput>;
  /** Releases what start() set up; safe after finish() and after a failure. */
  dispose(): Promise<void>;
}

export interface CaptureTypeModule {
  start(context: CaptureTypeContext): Promise<CaptureTypeRun>;
}
