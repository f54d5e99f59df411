/**
 * The types a TypeScript caller writes against: the arguments of one
 * execute_capture_plan call and what it returns. Both are derived from the
 * zod schemas the server advertises — the arguments from the input schema
 * (src/contract/toolArguments.ts, `z.input`), the result (src/contract/result.ts's CaptureResult)
 * from the output schema — so they follow them. The server still validates
 * every call at run time: these types help the caller, they do not replace
 * the contract's checks.
 */
import type { z } from 'zod';
import type { captureInputSchema } from './toolArguments';
import type { Viewport } from './captureContract';

type Flat<T> = { [K in keyof T]: T[K] };
type SchemaArguments = z.input<typeof captureInputSchema>;

/** The arguments of one call, as the tool's inputSchema describes them. */
export type CapturePlanArguments = Flat<SchemaArguments>;

/** One entry of `actions` (`{ do: 'click', selector: '#save' }`, ...). */
export type CapturePlanAction = NonNullable<SchemaArguments['actions']>[number];

/** `viewport` of the arguments and of the request echo. */
export type CaptureViewport = Viewport;
