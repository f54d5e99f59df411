/**
 * Which provider serves the tool: the last one registered (a third party's),
 * else the bundled browser provider, made on first use. The registry is a
 * plain object; the program (src/app/main.ts) keeps the one the process serves.
 */
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../contract/captureProvider';
import type { PuppeteerCaptureProvider, PuppeteerProviderOptions } from '../browser/capture/puppeteerProvider';
import { captureToolDeclaration, TOOL_NAME } from '../contract/toolDeclaration';

/**
 * The bundled provider as the registry holds it: the Puppeteer provider
 * (Puppeteer + raw CDP, src/browser/capture/puppeteerProvider.ts), loaded with the
 * first capture, not at start-up: answering initialize and tools/list, or
 * running `manifest check`, never pays for loading Puppeteer.
 */
class LazyPuppeteerProvider implements CaptureProvider {
  readonly toolName = TOOL_NAME;
  private loaded: Promise<PuppeteerCaptureProvider> | null = null;

  constructor(private readonly options: PuppeteerProviderOptions) {}

  describe() {
    return captureToolDeclaration();
  }

  private provider(): Promise<PuppeteerCaptureProvider> {
    this.loaded ??= import('../browser/capture/puppeteerProvider').then(({ PuppeteerCaptureProvider }) => new PuppeteerCaptureProvider(this.options));
    return this.loaded;
  }

  async capture(args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    return (await this.provider()).capture(args, context);
  }

  async close(): Promise<void> {
    if (this.loaded) await (await this.loaded).close();
  }
}

export function createLazyPuppeteerProvider(options: PuppeteerProviderOptions = {}): CaptureProvider {
  return new LazyPuppeteerProvider(options);
}

export class ProviderRegistry {
  private readonly registered: CaptureProvider[] = [];
  private bundled: CaptureProvider | null = null;

  constructor(private readonly makeBundled: () => CaptureProvider = createLazyPuppeteerProvider) {}

  /** Makes `provider` the one the server advertises and calls (call before serving). */
  register(provider: CaptureProvider): void {
    if (!provider || typeof provider.toolName !== 'string' || typeof provider.describe !== 'function' || typeof provider.capture !== 'function') {
      throw new TypeError('registerCaptureProvider needs { toolName, describe(), capture(arguments, context) }');
    }
    if (!provider.toolName.trim()) throw new TypeError('registerCaptureProvider: toolName must be a non-empty string');
    // tools/list advertises describe().name while calls are routed by toolName: they must agree.
    const declared = provider.describe()?.name;
    if (declared !== provider.toolName) {
      throw new TypeError(`registerCaptureProvider: describe().name '${String(declared)}' must equal toolName '${provider.toolName}'`);
    }
    const existing = this.registered.findIndex((p) => p.toolName === provider.toolName);
    if (existing >= 0) this.registered.splice(existing, 1);
    this.registered.push(provider);
  }

  /** Forgets registered providers (tests). */
  clear(): void {
    this.registered.length = 0;
  }

  /** The bundled browser provider (made on first use; nothing is launched until a capture). */
  bundledProvider(): CaptureProvider {
    if (!this.bundled) this.bundled = this.makeBundled();
    return this.bundled;
  }

  /** The provider the server serves: the last registered, else the bundled one. */
  active(): CaptureProvider {
    return this.registered.length ? this.registered[this.registered.length - 1] : this.bundledProvider();
  }

  /** The provider that serves `toolName` (the bundled one answers `execute_capture_plan`), or undefined. */
  find(toolName: string): CaptureProvider | undefined {
    for (let i = this.registered.length - 1; i >= 0; i--) if (this.registered[i].toolName === toolName) return this.registered[i];
    const fallback = this.bundledProvider();
    return fallback.toolName === toolName ? fallback : undefined;
  }

  /** Closes the bundled provider's browser, if one was made; the next use makes a new provider. */
  async closeBundled(): Promise<void> {
    const bundled = this.bundled;
    this.bundled = null;
    await bundled?.close?.();
  }

  /** Closes every provider this registry holds (shutdown); one that fails to close does not stop the others. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([this.closeBundled(), ...this.registered.map(async (p) => p.close?.())]);
  }
}
