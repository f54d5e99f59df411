/**
 * Lost Pixel (OSS, generate only) as bench/stories.js runs it: Storybook
 * shots of the served build at the bench's three viewports, on the bench's
 * engine (Playwright's own browsers are not installed here). Copy it into
 * the folder where lost-pixel is installed; the bench sets LP_SB_URL, LP_OUT
 * and LP_CHROME. Everything else is Lost Pixel's default (among them its
 * 1000 ms wait before each shot).
 */
const HEIGHTS = { 640: 480, 800: 600, 1024: 768 };
module.exports = {
  storybookShots: { storybookUrl: process.env.LP_SB_URL, breakpoints: [640, 800, 1024] },
  generateOnly: true,
  failOnDifference: false,
  imagePathCurrent: `${process.env.LP_OUT}/`,
  filterShot: (shot) => !shot.id.startsWith('components-badge--broken'),
  configureBrowser: (shot) => {
    const width = shot.parameters && shot.parameters.viewport && shot.parameters.viewport.width;
    return width ? { viewport: { width, height: HEIGHTS[width] || 720 } } : {};
  },
  browserLaunchOptions: { chromium: { executablePath: process.env.LP_CHROME, args: ['--no-sandbox', '--disable-gpu'] } },
};
