/**
 * The capture types, keyed by name: the one table the boundary, the batch
 * runner, the report and the demo read (nothing else compares `type`
 * strings). Its order is the tool's: the `type` enum, its refusal wording
 * and the report's summary list them so.
 */
import * as path from 'path';
import type { CaptureTypeSpec, SidecarSpec } from './spec';
import { screenshotType } from './screenshot';
import { a11yTreeType } from './a11yTree';
import { interactionTraceType } from './interactionTrace';

const SPECS = [screenshotType, a11yTreeType, interactionTraceType] as const;

export type CaptureType = (typeof SPECS)[number]['name'];

/** The `type` values, in the tool's order. */
export const CAPTURE_TYPES: readonly CaptureType[] = SPECS.map((spec) => spec.name);

type SpecOf<T extends CaptureType> = Extract<(typeof SPECS)[number], { name: T }>;

export const CAPTURE_TYPE_SPECS = Object.fromEntries(SPECS.map((spec) => [spec.name, spec])) as { readonly [T in CaptureType]: SpecOf<T> };

/** The name of a browser module some type names (src/browser/capture/types/<name>.ts). */
export type BrowserModuleName = (typeof SPECS)[number]['browserModule'];

/** The spec of `name` (a value read from a manifest, say), or undefined when no type has that name. */
export function findCaptureType(name: string): CaptureTypeSpec<CaptureType> | undefined {
  return (CAPTURE_TYPES as readonly string[]).includes(name) ? CAPTURE_TYPE_SPECS[name as CaptureType] : undefined;
}

/** One file a capture of the type writes: the artifact, then each sidecar beside it. */
export interface CaptureFile {
  /** Absolute path. */
  path: string;
  mimeType: string;
  description: string;
  /** The sidecar this file is; absent for the artifact. */
  sidecar?: SidecarSpec;
}

/** The files a capture of `spec` writes for the artifact at `artifactPath` (absolute). */
export function captureFiles(spec: CaptureTypeSpec, artifactPath: string): CaptureFile[] {
  const folder = path.dirname(artifactPath);
  const leaf = path.basename(artifactPath);
  return [
    { path: artifactPath, mimeType: spec.artifact.mimeType, description: `the ${spec.name} artifact` },
    ...spec.sidecars.map((sidecar) => ({
      path: path.join(folder, sidecar.leafOf(leaf)),
      mimeType: sidecar.mimeType,
      description: sidecar.description,
      sidecar,
    })),
  ];
}

export { sidecarLeaf } from './screenshot';
export { ariaEnvelope, envelopeTree, ARIA_ENVELOPE_FORMAT } from './a11yTree';
export type { CaptureTypeSpec, SidecarSpec, ReportView } from './spec';
