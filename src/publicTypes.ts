/**
 * The types a TypeScript caller writes against: the arguments of one
 * execute_capture_plan call and what it returns. The arguments are derived
 * from the zod input schema the server advertises (src/request.ts), so they
 * follow it; the result is src/result.ts's CaptureResult, checked here
 * against the output schema so the two cannot drift apart. The server still
 * validates every call at run time: these types help the caller, they do
 * not replace the contract's checks.
 */
import type { z } from 'zod';
import type { captureInputSchema } from './request';
import type { captureResultSchema, CaptureResult } from './result';
import type { Viewport } from './contract';

type Flat<T> = { [K in keyof T]: T[K] };
type SchemaArguments = z.input<typeof captureInputSchema>;

/**
 * The arguments of one call, as the tool's inputSchema describes them. The
 * viewport's four keys are the contract's Viewport (the schema types them
 * per key only at run time).
 */
export type CapturePlanArguments = Flat<Omit<SchemaArguments, 'viewport'> & { viewport: Viewport }>;

/** One entry of `actions` (`{ do: 'click', selector: '#save' }`, ...). */
export type CapturePlanAction = NonNullable<SchemaArguments['actions']>[number];

/** `viewport` of the arguments and of the request echo. */
export type CaptureViewport = Viewport;

// Compile-time guard: CaptureResult has the output schema's keys and fits its
// types; tsc fails the build here if result.ts and its schema part ways.
type SchemaResult = z.output<typeof captureResultSchema>;
type True<T extends true> = T;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a type that only has to compile
type CaptureResultMatchesSchema = True<SameKeys<CaptureResult, SchemaResult>> &
  True<CaptureResult extends SchemaResult ? true : false>;
