/**
 * The program's errors: one base class, EvidenceError, whose `code` says
 * what kind of failure it is, so a caller branches on the code (or the
 * class), never on the message. Each subclass lives beside the rule that
 * throws it; the message wording of caller-facing faults is
 * src/common/failures.ts's. The hierarchy:
 *
 * - ToolInputError (`tool-input`, here): a refusal of the tool's arguments
 *   themselves, answered as a tool error (`isError: true`);
 * - ShutdownError (`shutdown`) and CaptureCancelled (`cancelled`):
 *   src/common/failures.ts; the one error a capture ends with when the
 *   server shuts down, wherever it was;
 * - CaptureOverrun (`overrun`, src/browser/capture/progress.ts) and
 *   CaptureLost (`lost`, src/browser/capture/captureAttempt.ts): what ends a
 *   capture from outside its own work;
 * - BrowserUnavailableError (`browser-unavailable`), BrowserNotFoundError
 *   (`browser-not-found`), NoEndpointAnswered (`no-endpoint-answered`),
 *   RetryTimedOut (`retry-timed-out`), ConnectFailure (`connect-failed`):
 *   src/browser/fleet/;
 * - NavigationError (`navigation-failed`): src/browser/page/pageSetup.ts;
 * - ActionError (`action-failed`) and the runner's own NotReady
 *   (`not-ready`): src/browser/capture/actionRunner.ts;
 * - WriteRefusal (its codes: `exists`, `symlink_escape`, …):
 *   src/boundary/safeWrite.ts; PngFormatError (`png-format`):
 *   src/png/decode.ts; PlanUnreadable (`plan-unreadable`):
 *   src/batch/planFile.ts; UsageError (`usage`): src/cli/args.ts;
 *   ReportOutputError (`report-output`): src/report/writeReport.ts;
 *   CompareInputError (`compare-input`): src/compare/pairing.ts;
 *   PixelInputError and PngInputError (`pixel-input`): src/compare/pixels/readPng.ts;
 *   CompareToolInputError (`compare-arguments`): src/compare/tool.ts;
 *   SecretsFileError (`secrets-file`): src/common/secrets.ts;
 *   SecretInEvidence (`secret-in-evidence`): src/boundary/secretGuard.ts;
 *   SecretOnPage (`secret-on-page`): src/browser/capture/secretMasking.ts;
 *   StorySourceError (`story-source`) and StorySelectionError
 *   (`story-selection`): src/stories/; StoryFailed (`story-failed`, a
 *   story Storybook could not render): src/browser/page/storyRest.ts;
 *   StorageStateError (`storage-state`): src/contract/storageState.ts.
 *
 * Two kinds stay outside it on purpose: cdp/ keeps its own (DeadlineExceeded,
 * PageScriptError, SelectorSyntaxError: cdp/ imports nothing from src/), and
 * the MCP server's InvalidParams carries the numeric JSON-RPC code the SDK
 * sends. test/architecture/errors.test.ts holds src/ to it.
 */
export class EvidenceError<C extends string = string> extends Error {
  constructor(
    /** What kind of failure this is. */
    readonly code: C,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A refusal of the tool's arguments themselves (unknown fields, runtime field
 * shapes). The server turns it into an `isError: true` tool result carrying the
 * message, as the original adapter did by raising; every later failure is a
 * normal payload with `result: "failed"`.
 */
export class ToolInputError extends EvidenceError<'tool-input'> {
  constructor(message: string) {
    super('tool-input', message);
    this.name = 'ToolInputError';
  }
}
