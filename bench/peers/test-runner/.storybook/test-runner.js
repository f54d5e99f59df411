// @storybook/test-runner hooks: full-page screenshot of every story into $TR_OUT/<story id>.png.
import fs from 'node:fs';
import path from 'node:path';

const OUT = process.env.TR_OUT;
const VIEWPORT = process.env.TR_VIEWPORT; // "WxH", e.g. 640x480

/** @type {import('@storybook/test-runner').TestRunnerConfig} */
export default {
  // The default, spelled out: stories tagged '!test' (no 'test' tag in index.json) get no test.
  tags: { include: ['test'] },
  async preVisit(page) {
    if (VIEWPORT) {
      const [width, height] = VIEWPORT.split('x').map(Number);
      await page.setViewportSize({ width, height });
    }
  },
  async postVisit(page, context) {
    if (context.hasFailure) return; // the story threw: no screenshot of an error page
    if (!OUT) throw new Error('TR_OUT is not set');
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({
      path: path.join(OUT, `${context.id}.png`),
      fullPage: true,
      animations: 'disabled',
      caret: 'hide',
    });
  },
};
