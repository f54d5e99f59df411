// Stub: test-storybook always loads main.js (framework name, telemetry flag), even in --index-json
// mode, where the stories come from <url>/index.json and these globs are never read.
export default {
  stories: ['../stories/**/*.stories.js'],
  framework: '@storybook/html-vite',
  core: { disableTelemetry: true },
};
