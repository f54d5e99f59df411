/**
 * Lint: errors only for real problems (unused code, floating promises,
 * loose equality, imports the runtime must not make); style is prettier's
 * (.prettierrc.json). TypeScript is linted with types (tsconfig.test.json
 * covers src/, cdp/, test/ and bench/).
 */
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

/** Of the recommended sets, the rules that flag style or deliberate code here rather than bugs. */
const NOT_BUGS = {
  '@typescript-eslint/no-explicit-any': 'off',
  // Escaping control characters is what the aria YAML writer is for.
  'no-control-regex': 'off',
  // `let x = fallback; try { x = … } catch {}` is the code's way to say what a failed try leaves.
  'no-useless-assignment': 'off',
  'preserve-caught-error': 'off',
};

module.exports = tseslint.config(
  {
    ignores: [
      'dist/',
      'plugin/',
      'node_modules/',
      '**/generated/',
      'test/**/corpus/',
      'test/**/pages/',
      'test/**/fixtures/',
      'bench/**/pages/',
      'demo/',
      'coverage/',
    ],
  },
  // Directives written for rules this config does not run (no-console) are left as they are.
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      ...NOT_BUGS,
      // The scripts and benches are CommonJS, and tests re-load modules with require(); src/ and cdp/ import (below).
      '@typescript-eslint/no-require-imports': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: __dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    // In-page code, and the benches' functions evaluated in the page.
    files: ['cdp/injected/**/*.ts', 'src/report/page/**/*.ts', 'bench/**/*.js', 'scripts/report-screenshot.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The runtime: Playwright is the tests' oracle only, and Puppeteer comes without its download (package.json, "Design notes").
    files: ['src/**/*.ts', 'cdp/**/*.ts'],
    rules: {
      '@typescript-eslint/no-require-imports': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'playwright-core', message: "the runtime never imports Playwright (it is a devDependency, the tests' oracle)" },
            { name: 'playwright', message: 'the runtime never imports Playwright' },
            { name: 'puppeteer', message: "import puppeteer-core: puppeteer's install script downloads a browser" },
          ],
        },
      ],
    },
  },
);
