/**
 * Which module captures which `type`: each capture-type spec
 * (src/contract/captureTypes/) names its browser module, resolved here, so the
 * boundary's table never loads browser code.
 */
import { CAPTURE_TYPES, CAPTURE_TYPE_SPECS, type BrowserModuleName, type CaptureType } from '../../../contract/captureTypes';
import type { CaptureTypeModule } from './types';
import { screenshotCapture } from './screenshot';
import { a11yTreeCapture } from './a11yTree';
import { interactionTraceCapture } from './interactionTrace';

const BROWSER_MODULES: Record<BrowserModuleName, CaptureTypeModule> = {
  screenshot: screenshotCapture,
  a11yTree: a11yTreeCapture,
  interactionTrace: interactionTraceCapture,
};

export const CAPTURE_TYPE_MODULES = Object.fromEntries(CAPTURE_TYPES.map((type) => [type, BROWSER_MODULES[CAPTURE_TYPE_SPECS[type].browserModule]])) as Record<
  CaptureType,
  CaptureTypeModule
>;

export type { CaptureTypeModule, CaptureTypeRun, CaptureTypeContext, CaptureTypeOutput } from './types';
