/**
 * The utility world: one isolated world per frame of a page session, where
 * the in-page runtime (injected/runtime.ts, bundled into generated/runtime.ts)
 * runs — selectors, actionability, the aria walk, the trace serializer. Same
 * DOM as the page, but built-ins (JSON, Map, Array methods, querySelector)
 * the page's scripts cannot have patched. The world is made on first use,
 * cached per session and frame, and made again when a navigation destroyed
 * it (one retry, on a `context-gone` error); the runtime is installed in the
 * same evaluation as the world's first call, so a call costs one protocol
 * round trip, the first one in a world included.
 *
 * What is installed is the smallest part of the runtime that has the method
 * called (PART_METHODS): a world that only takes the aria walk (an a11y
 * capture) or only serializes its frame (a trace's subframe) compiles 18 or
 * 4 KB instead of 58. A world that later needs a method its part lacks gets
 * the whole runtime in that call.
 *
 * Calls name a runtime export and pass its arguments, typed from the
 * runtime module itself: `callRuntime(session, 'count', ['li'])` is a
 * Promise<number>. Page exceptions come back as PageScriptError carrying the
 * page's message.
 */
import type { CdpSession } from './types';
import type * as Runtime from './injected/runtime';
import type * as AriaPart from './injected/runtimeAria';
import type * as SnapshotPart from './injected/runtimeSnapshot';
import { source as RUNTIME_SOURCE } from './generated/runtime';
import { source as ARIA_PART_SOURCE } from './generated/runtimeAria';
import { source as SNAPSHOT_PART_SOURCE } from './generated/runtimeSnapshot';
import { classifyProtocolError } from './failureKinds';
import type { Protocol } from 'devtools-protocol/types/protocol';

export type PageRuntime = typeof Runtime;
type AnyFunction = (...args: any[]) => any;
/** The runtime's callable exports. */
export type RuntimeMethod = { [K in keyof PageRuntime]: PageRuntime[K] extends AnyFunction ? K : never }[keyof PageRuntime];
type Args<M extends RuntimeMethod> = Parameters<PageRuntime[M]>;
type Result<M extends RuntimeMethod> = Awaited<ReturnType<PageRuntime[M]>>;
/** Exports called on an element (the element is their first parameter). */
export type ElementMethod = { [K in RuntimeMethod]: Args<K> extends [infer First, ...unknown[]] ? (Element extends First ? K : never) : never }[RuntimeMethod];
type ArgsAfterElement<M extends ElementMethod> = Args<M> extends [unknown, ...infer Rest] ? Rest : never;
/** A call's result once any element in it is a handle: an element result is `{objectId}`, anything else its value. */
export type HandleOr<T> = T extends Node ? { objectId: string } : T;

const WORLD_NAME = 'design-playbook-utility';
/** Where the runtime lives in the world's global; tests and benches that evaluate their own expression there read it. */
export const RUNTIME_GLOBAL = "globalThis[Symbol.for('design-playbook.runtime')]";
const MISSING = '__design_playbook_runtime_missing__';

/** A part of the runtime a world can hold; 'whole' has every method. */
type RuntimePart = 'aria' | 'snapshot' | 'whole';
/** Every method each smaller part has: the keys are checked against the part's own exports. */
const PART_METHODS: { aria: Record<keyof typeof AriaPart, true>; snapshot: Record<keyof typeof SnapshotPart, true> } = {
  aria: { ariaWalk: true },
  snapshot: { frameOwner: true, serializeTraceFrame: true },
};
const PART_SOURCE: Record<RuntimePart, string> = { aria: ARIA_PART_SOURCE, snapshot: SNAPSHOT_PART_SOURCE, whole: RUNTIME_SOURCE };

/** The smallest part that has `method`. */
function partFor(method: RuntimeMethod): RuntimePart {
  if (method in PART_METHODS.aria) return 'aria';
  if (method in PART_METHODS.snapshot) return 'snapshot';
  return 'whole';
}

/** Whether a world holding `held` can run `method`. */
function covers(held: RuntimePart | null, method: RuntimeMethod): boolean {
  return held === 'whole' || (held !== null && held === partFor(method));
}

/** An exception the page's side of a call threw; `message` is its first line without the `Uncaught Error:` prefix. */
export class PageScriptError extends Error {
  constructor(readonly description: string) {
    super(description.split('\n')[0].replace(/^(?:Uncaught )?(?:\w*Error: )?/, ''));
    this.name = 'PageScriptError';
  }
}

interface KnownWorld {
  contextId: number;
  /** The part of the runtime this process installed there (null: none yet). */
  part: RuntimePart | null;
}

interface SessionWorlds {
  /** The main frame's id, learnt when its world was made. */
  main?: string;
  /** The world of each frame, by frame id. */
  contexts: Map<string, KnownWorld>;
}

const worldsBySession = new WeakMap<CdpSession, SessionWorlds>();

function worldsOf(session: CdpSession): SessionWorlds {
  let worlds = worldsBySession.get(session);
  if (!worlds) worldsBySession.set(session, (worlds = { contexts: new Map() }));
  return worlds;
}

/** Forget the worlds of one frame (or all of the session's): the next call makes a new one. */
export function forgetUtilityWorlds(session: CdpSession, frameId?: string): void {
  const worlds = worldsBySession.get(session);
  if (!worlds) return;
  if (frameId === undefined) worlds.contexts.clear();
  else worlds.contexts.delete(frameId);
}

interface World {
  frameId: string;
  /** The world as this process knows it (its part updated once an install succeeded). */
  known: KnownWorld;
}

async function worldFor(session: CdpSession, frameId: string | undefined): Promise<World> {
  const worlds = worldsOf(session);
  const known = frameId ?? worlds.main;
  const cached = known === undefined ? undefined : worlds.contexts.get(known);
  if (cached !== undefined) return { frameId: known!, known: cached };
  let target = frameId;
  if (target === undefined) {
    const { frameTree } = await session.send('Page.getFrameTree');
    target = worlds.main = frameTree.frame.id;
    // A call that named the main frame by id may have made its world already.
    const named = worlds.contexts.get(target);
    if (named !== undefined) return { frameId: target, known: named };
  }
  // Universal access: the trace serializer reads the CSSOM of cross-origin style sheets (as Playwright's utility world may).
  const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: target, worldName: WORLD_NAME, grantUniveralAccess: true });
  const made: KnownWorld = { contextId: executionContextId, part: null };
  worlds.contexts.set(target, made);
  return { frameId: target, known: made };
}

/**
 * The part of the runtime to install for `method` in a world holding `held`:
 * the smallest that has it in an empty world, the whole runtime over a part
 * that lacks it (so two small parts never take turns); null when none is needed.
 */
function partToInstall(held: RuntimePart | null, method: RuntimeMethod, force: boolean): RuntimePart | null {
  if (covers(held, method) && !force) return null;
  return held === null ? partFor(method) : 'whole';
}

/**
 * The world's runtime, with `method`: the part named is installed first unless
 * the world already holds a runtime that has the method (the source crosses
 * only then); without one, a runtime that lacks the method reads as missing.
 */
function runtimeExpression(method: string, install: RuntimePart | null): string {
  const has = `(g) => g && ${JSON.stringify(method)} in g`;
  if (!install) return `((${has})(${RUNTIME_GLOBAL}) ? ${RUNTIME_GLOBAL} : null)`;
  return `((${has})(${RUNTIME_GLOBAL}) ? ${RUNTIME_GLOBAL} : (${RUNTIME_GLOBAL} = ${PART_SOURCE[install]}))`;
}

/** JSON arguments for a spread call; trailing undefined ones are left off so parameter defaults apply. */
function argumentList(args: readonly unknown[]): string {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  return JSON.stringify(args.slice(0, end));
}

function describeException(details: Protocol.Runtime.ExceptionDetails): string {
  return String(details.exception?.description || details.text || 'unknown error');
}

interface CallOptions {
  /** The frame whose world runs the call; default the main frame. */
  frameId?: string;
  /** For results that are promises (a wait for the next animation frame). */
  awaitPromise?: boolean;
  /** Remote objects the call returns join this group (released together). */
  objectGroup?: string;
}

/** Evaluates a call of the runtime in the frame's world: one round trip, a second after a navigation destroyed a cached world. */
async function evaluateCall(
  session: CdpSession,
  method: RuntimeMethod,
  call: string,
  returnByValue: boolean,
  options: CallOptions,
): Promise<Protocol.Runtime.RemoteObject> {
  let force = false;
  for (let attempt = 1; ; attempt++) {
    const world = await worldFor(session, options.frameId);
    const install = partToInstall(world.known.part, method, force);
    const expression = `(() => { const rt = ${runtimeExpression(method, install)}; if (!rt) return '${MISSING}'; ${call} })()`;
    let reply: Protocol.Runtime.EvaluateResponse;
    try {
      reply = await session.send('Runtime.evaluate', {
        expression,
        contextId: world.known.contextId,
        returnByValue,
        awaitPromise: options.awaitPromise,
        objectGroup: options.objectGroup,
      });
    } catch (error) {
      forgetUtilityWorlds(session, world.frameId);
      // The world went away with its document: once more, in a new world.
      if (attempt >= 2 || classifyProtocolError(error) !== 'context-gone') throw error;
      continue;
    }
    if (reply.exceptionDetails) throw new PageScriptError(describeException(reply.exceptionDetails));
    if (reply.result.type === 'string' && reply.result.value === MISSING) {
      // A world whose runtime is not there yet, or lacks the method (a call raced the install): install it.
      if (attempt >= 2) throw new Error('the page runtime could not be installed in its world');
      force = true;
      continue;
    }
    // The runtime the world holds now has at least what was installed (a concurrent call may have installed more).
    if (install && !covers(world.known.part, method)) world.known.part = install;
    return reply.result;
  }
}

/** Calls runtime export `method` in the frame's world; resolves with its value (JSON-serializable results only). */
export async function callRuntime<M extends RuntimeMethod>(session: CdpSession, method: M, args: Args<M>, options: CallOptions = {}): Promise<Result<M>> {
  const result = await evaluateCall(session, method, `return rt.${method}(...${argumentList(args)});`, true, options);
  return result.value as Result<M>;
}

/**
 * callRuntime for exports that may return an element: the element comes back
 * as a remote object of the world (`{objectId}`, for DOM.* and callRuntimeOn;
 * release it with releaseObject), anything else as its value — in the same
 * round trip.
 */
export async function callRuntimeForHandle<M extends RuntimeMethod>(
  session: CdpSession,
  method: M,
  args: Args<M>,
  options: CallOptions = {},
): Promise<HandleOr<Result<M>>> {
  const call = `const r = rt.${method}(...${argumentList(args)}); return r instanceof Node ? r : JSON.stringify(r === undefined ? null : r);`;
  const result = await evaluateCall(session, method, call, false, options);
  if (result.subtype === 'node' && result.objectId) return { objectId: result.objectId } as HandleOr<Result<M>>;
  return JSON.parse(result.value as string) as HandleOr<Result<M>>;
}

/**
 * Calls runtime export `method` with the element `objectId` names (an object
 * of a utility world, whose runtime is installed) as its first argument and
 * `args` after it; resolves with the value.
 */
export async function callRuntimeOn<M extends ElementMethod>(
  session: CdpSession,
  objectId: string,
  method: M,
  args: ArgsAfterElement<M>,
  options: Pick<CallOptions, 'awaitPromise'> = {},
): Promise<Result<M>> {
  const reply = await session.send('Runtime.callFunctionOn', {
    objectId,
    functionDeclaration: `function(...args) { return ${RUNTIME_GLOBAL}.${method}(this, ...args); }`,
    arguments: (args as unknown[]).map((value) => ({ value })),
    returnByValue: true,
    awaitPromise: options.awaitPromise,
  });
  if (reply.exceptionDetails) throw new PageScriptError(describeException(reply.exceptionDetails));
  return reply.result.value as Result<M>;
}

/**
 * The execution context of the frame's utility world with the runtime
 * installed, for protocol calls that take a context (DOM.resolveNode hands
 * it an element another session or world found).
 */
export async function utilityContext(session: CdpSession, frameId?: string): Promise<number> {
  const world = await worldFor(session, frameId);
  if (world.known.part !== 'whole') {
    // The whole runtime: a context handed out may be asked for any method (queryFirst stands for them).
    const expression = `(${runtimeExpression('queryFirst', 'whole')}, true)`;
    const reply = await session.send('Runtime.evaluate', { expression, contextId: world.known.contextId, returnByValue: true });
    if (reply.exceptionDetails) throw new PageScriptError(describeException(reply.exceptionDetails));
    world.known.part = 'whole';
  }
  return world.known.contextId;
}

/** Lets the page forget a handle a call returned (best effort). */
export function releaseObject(session: CdpSession, objectId: string): void {
  session.send('Runtime.releaseObject', { objectId }).catch(() => undefined);
}

/** A runtime result that crossed as one JSON string, parsed back into what it encodes. */
export function parseJson<T>(json: Runtime.Json<T>): T {
  return JSON.parse(json) as T;
}
