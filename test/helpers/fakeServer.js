#!/usr/bin/env node
/**
 * Serves the BUILT package (dist/src/index.js) on stdio with a browserless
 * capture provider registered through the public API, so wire tests can make
 * real capture calls in a separate process. Behaviour via environment:
 *   FAKE_PROVIDER_MODE      write (default) | fail | throw
 *   FAKE_PROVIDER_DELAY_MS  wait this long inside capture (a call in flight)
 *   FAKE_PROVIDER_NOISE=1   also print to console.log (must not reach stdout)
 */
'use strict';
const path = require('path');
const lib = require(path.join(__dirname, '..', '..', 'dist', 'src', 'index.js'));

const mode = process.env.FAKE_PROVIDER_MODE || 'write';
const delayMs = Number(process.env.FAKE_PROVIDER_DELAY_MS || 0);
const noisy = process.env.FAKE_PROVIDER_NOISE === '1';

lib.registerCaptureProvider({
  toolName: lib.TOOL_NAME,
  describe: () => lib.captureToolDeclaration(),
  async capture(_args, context) {
    if (noisy) console.log('fake provider: capture started');
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (mode === 'throw') throw new Error('fake provider threw');
    context.writeArtifact(Buffer.from(`fake bytes for ${context.fields.type}\n`));
    if (mode === 'fail') return { result: 'failed', error: 'fake provider failed' };
    return {
      result: 'captured',
      observed_state: 'fake-observed',
      page_facts: {
        finalUrl: context.fields.url,
        documentSize: { width: 800, height: 1200 },
        viewport: { width: context.request.viewport.width, height: context.request.viewport.height },
        devicePixelRatio: context.request.viewport.devicePixelRatio,
      },
    };
  },
});

lib.serveStdio().catch((err) => {
  process.stderr.write(`fake server failed: ${err && err.stack ? err.stack : err}\n`);
  process.exit(3);
});
