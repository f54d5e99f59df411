/**
 * What a capture type is, as the boundary, the batch runner, the report and
 * the demo need to know it: its name, the rule its file name must keep, the
 * files it writes (the artifact and any sidecar beside it, with the MIME
 * types the result's resource links carry), how the report shows it, and
 * which browser module makes its bytes. One file per type in this folder
 * holds its spec; ./index.ts is the table keyed by name.
 *
 * The spec names its browser module (src/browser/capture/types/<name>.ts)
 * rather than importing it: the boundary reads this table at start-up, and
 * starting the server must not load Puppeteer. The provider side
 * (src/browser/capture/types/index.ts) resolves the name.
 */
import type { CaptureRequestSnapshot } from '../captureContract';
import type { ProbeSidecarSource } from '../../probe/sidecar';

/** A file a capture writes beside its artifact, named after it. */
export interface SidecarSpec {
  /** What messages call it: `probe sidecar`. */
  name: string;
  /** Its leaf, from the artifact's leaf (`L6.2-x.png` -> `L6.2-x.probe.json`). */
  leafOf(artifactLeaf: string): string;
  mimeType: string;
  /** How the result's resource link describes it. */
  description: string;
  /** Its text, from what the provider measured and the request echo. */
  contents(measured: ProbeSidecarSource, request: CaptureRequestSnapshot): string;
}

/** How the run report shows an artifact of the type: an image (with its probe sidecar's boxes), an aria tree, a trace. */
export type ReportView = 'image' | 'a11y' | 'trace';

export interface CaptureTypeSpec<Name extends string = string> {
  /** The `type` argument's value. */
  readonly name: Name;
  /** What the tool's input schema says the type writes. */
  readonly writes: string;
  /**
   * The file-name rule: why `artifact_path` (as given, and the leaf it
   * resolved to) cannot name this type's artifact, or null when it can.
   */
  refuseName(artifactPath: string, resolvedLeaf: string): string | null;
  /** The artifact's MIME type (its resource link says `the <name> artifact`). */
  readonly artifact: { readonly mimeType: string };
  readonly sidecars: readonly SidecarSpec[];
  readonly reportView: ReportView;
  /** src/browser/capture/types/<browserModule>.ts makes the bytes. */
  readonly browserModule: string;
}
