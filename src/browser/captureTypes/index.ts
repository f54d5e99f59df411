/** Which module captures which `type`. */
import type { CaptureType } from '../../request';
import type { CaptureTypeModule } from './types';
import { screenshotCapture } from './screenshot';
import { a11yTreeCapture } from './a11yTree';
import { interactionTraceCapture } from './interactionTrace';

export const CAPTURE_TYPE_MODULES: Record<CaptureType, CaptureTypeModule> = {
  screenshot: screenshotCapture,
  'a11y tree': a11yTreeCapture,
  'interaction trace': interactionTraceCapture,
};

export type { CaptureTypeModule, CaptureTypeRun, CaptureTypeContext, CaptureTypeOutput } from './types';
