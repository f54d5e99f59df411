/**
 * A capture-provider test double: no browser, it stages bytes through
 * `context.writeArtifact` (the path the bundled provider uses) or does
 * whatever a behaviour function tells it to, and records every call so a
 * test can prove the boundary refused a request before the provider ran.
 */
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../../src/contract/captureProvider';
import { captureToolDeclaration, TOOL_NAME } from '../../src/contract/toolDeclaration';

export type FakeBehaviour = (args: Record<string, unknown>, context: CaptureContext) => Promise<ProviderPayload> | ProviderPayload;

export interface FakeCall {
  args: Record<string, unknown>;
  context: CaptureContext;
}

/** The 8-byte PNG signature plus a marker, enough to tell our bytes from anyone else's. */
export const FAKE_PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('fake-provider-bytes')]);

/** The observed state the fake reports: deliberately never the requested `state`. */
export const FAKE_OBSERVED_STATE = 'fake-observed';

export const FAKE_PAGE_FACTS = {
  finalUrl: 'http://127.0.0.1/fake.html',
  documentSize: { width: 800, height: 1200 },
  viewport: { width: 800, height: 600 },
  devicePixelRatio: 1,
};

export class FakeProvider implements CaptureProvider {
  readonly toolName = TOOL_NAME;
  readonly calls: FakeCall[] = [];

  constructor(private behaviour: FakeBehaviour = writes(FAKE_PNG)) {}

  describe() {
    return captureToolDeclaration();
  }

  setBehaviour(behaviour: FakeBehaviour): void {
    this.behaviour = behaviour;
  }

  async capture(args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    this.calls.push({ args, context });
    return this.behaviour(args, context);
  }
}

/** Stages `bytes` and reports captured (with page facts, so a screenshot sidecar can be built). */
export function writes(bytes: Buffer | string = FAKE_PNG, extra: Partial<ProviderPayload> = {}): FakeBehaviour {
  return (_args, context) => {
    context.writeArtifact(bytes);
    return { result: 'captured', observed_state: FAKE_OBSERVED_STATE, page_facts: FAKE_PAGE_FACTS, ...extra };
  };
}

/** Stages bytes, then reports failure. */
export function writesThenFails(error = 'fake capture failed'): FakeBehaviour {
  return (_args, context) => {
    context.writeArtifact(FAKE_PNG);
    return { result: 'failed', error };
  };
}

/** Stages bytes, then throws. */
export function writesThenThrows(error = 'fake provider exploded'): FakeBehaviour {
  return (_args, context) => {
    context.writeArtifact(FAKE_PNG);
    throw new Error(error);
  };
}

/** Claims success without writing anything. */
export function claimsWithoutWriting(): FakeBehaviour {
  return () => ({ result: 'captured', observed_state: FAKE_OBSERVED_STATE, page_facts: FAKE_PAGE_FACTS });
}

/** Runs `sideEffect` (a concurrent actor) in the middle of the capture, then behaves like `then`. */
export function during(sideEffect: (context: CaptureContext) => void, then: FakeBehaviour = writes()): FakeBehaviour {
  return (args, context) => {
    sideEffect(context);
    return then(args, context);
  };
}
