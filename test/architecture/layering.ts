/**
 * The layering rules, as a checker over source text (so a test can feed it
 * a made-up violation and see it caught). Rules:
 *   - no import cycles anywhere in src/ and cdp/ (type-only imports count);
 *   - cdp/ imports nothing from src/ (it depends on a three-method session only);
 *   - cdp/ never imports Puppeteer (a chrome-remote-interface client serves it too);
 *   - cdp/injected/ imports only cdp/injected/ (it is built into the page's
 *     script: no Node module, no package, nothing of the Node side, types included);
 *   - every module of src/ belongs to one layer of LAYERS, and imports only
 *     its own layer and the layers that layer names (cdp/ and packages aside):
 *     common <- contract <- browser/page <- browser/fleet <- browser/capture,
 *     with the boundary, the MCP server, the manifest, the report, the batch
 *     runner, the CLI and the app above the contract as LAYERS says. So the
 *     contract (the capture-type specs included) never loads browser code:
 *     the boundary reads it at start-up, and starting must not load Puppeteer;
 *   - only src/browser/ imports Puppeteer;
 *   - nothing is loaded with require(); a module loaded later with import()
 *     (to keep start-up light) counts as an import, so it cannot hide a cycle;
 *   - only the root (src/app/main.ts) holds process-wide state (ALLOWED_STATE
 *     lists the documented exceptions): no other module has a top-level `let`/`var`, a top-level empty mutable container
 *     (`[]`, `{}`, `new Map()`, `new Set()`), or a top-level process.on hook.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

export interface SourceFile {
  /** Repository-relative, '/'-separated, e.g. `src/browser/page/freeze.ts`. */
  file: string;
  text: string;
}

export interface Violation {
  rule:
    | 'cycle'
    | 'cdp-imports-src'
    | 'cdp-imports-puppeteer'
    | 'injected-imports-outside'
    | 'upward-import'
    | 'no-layer'
    | 'puppeteer-outside-browser'
    | 'dynamic-load'
    | 'module-state';
  file: string;
  detail: string;
}

export const ROOT_MODULE = 'src/app/main.ts';

const REPO = path.join(__dirname, '..', '..');

/** Every module of src/ and cdp/ as it is on disk (cdp/generated/ is build output: the in-page bundles as strings). */
export function repositorySources(): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(REPO, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory() && child !== 'cdp/generated') walk(child);
      else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        out.push({ file: child, text: fs.readFileSync(path.join(REPO, child), 'utf8') });
      }
    }
  };
  for (const root of ['src', 'cdp']) walk(root);
  return out;
}

/**
 * Module state the rule allows, each with its reason. In-page code
 * (cdp/injected/) runs in the page, not in this process: its module state is
 * per document.
 */
export const ALLOWED_STATE: Record<string, string> = {
  'src/boundary/runRoot.ts':
    'cwdWarningLogged: the unmarked-cwd warning is logged to stderr once per process (test/foundation/runRoot.test.ts asserts it of the module)',
  'src/compare/pixels/kernels.ts':
    'compiled, idle: the pixel kernels compiled once per process, and one kernel memory kept between comparisons, already grown, so the next one does not fault its pages in again (test/compare/pixelKernels.test.ts)',
  'src/compare/pixels/rulesWorkerPool.ts':
    'running, failures, idleBands: the one pixel rules worker thread of the process, kept between comparisons (starting one costs ~30 ms), how often it failed, and the shared buffers of its last job kept for the next (test/compare/rulesWorker.test.ts)',
};

/**
 * The layers of src/, each with its folders (or single modules) and the
 * layers it may import besides its own. Lowest first: a layer names only
 * layers above it in this list.
 */
export const LAYERS: ReadonlyArray<{ name: string; holds: readonly string[]; mayImport: readonly string[]; is: string }> = [
  { name: 'common', holds: ['src/common/', 'src/png/'], mayImport: [], is: 'failures and errors, time, logging, redaction, settings, PNG bytes' },
  {
    name: 'contract',
    holds: ['src/contract/', 'src/probe/'],
    mayImport: ['common'],
    is: "the tool's arguments, result, capture types, actions and provider seam; the render-token probe whose face the sidecar carries",
  },
  { name: 'manifest', holds: ['src/manifest/'], mayImport: ['common', 'contract'], is: 'manifest line rules, reader and schema' },
  { name: 'boundary', holds: ['src/boundary/'], mayImport: ['common', 'contract'], is: 'the checks every call passes, and the write' },
  { name: 'browser/page', holds: ['src/browser/page/', 'src/browser/options.ts'], mayImport: ['common', 'contract'], is: 'one page: set-up, clock, freeze' },
  { name: 'browser/fleet', holds: ['src/browser/fleet/'], mayImport: ['common', 'contract', 'browser/page'], is: 'browsers: launch, attach, pool' },
  {
    name: 'browser/capture',
    holds: ['src/browser/capture/'],
    mayImport: ['common', 'contract', 'browser/page', 'browser/fleet'],
    is: "one capture's lifecycle, its actions and capture-type modules; the bundled provider",
  },
  { name: 'report', holds: ['src/report/'], mayImport: ['common', 'contract', 'manifest'], is: 'the run report' },
  {
    name: 'compare',
    holds: ['src/compare/'],
    mayImport: ['common', 'contract', 'manifest', 'boundary', 'report'],
    is: 'evidence compared across rounds and runs: pairing, the per-kind diffs, compare.json and its page, the opt-in tool',
  },
  { name: 'mcp', holds: ['src/mcp/'], mayImport: ['common', 'contract', 'boundary', 'compare'], is: 'the MCP server and its stdio transport' },
  { name: 'batch', holds: ['src/batch/'], mayImport: ['common', 'contract', 'boundary'], is: 'the plan-file runner' },
  {
    name: 'stories',
    holds: ['src/stories/'],
    mayImport: ['common', 'contract'],
    is: "a Storybook's story index, the stories chosen, their plan, the loopback server of a built one",
  },
  {
    name: 'cli',
    holds: ['src/cli/'],
    mayImport: ['common', 'contract', 'manifest', 'boundary', 'browser/page', 'browser/fleet', 'report', 'compare', 'batch', 'stories'],
    is: 'the subcommands',
  },
  {
    name: 'app',
    holds: ['src/app/', 'src/index.ts', 'src/bin.ts'],
    mayImport: [
      'common',
      'contract',
      'manifest',
      'boundary',
      'browser/page',
      'browser/fleet',
      'browser/capture',
      'mcp',
      'report',
      'compare',
      'batch',
      'stories',
      'cli',
    ],
    is: 'the composition root, the provider registry, the entry points and the library API',
  },
];

/** The layer a module of src/ belongs to, or undefined. */
export function layerOf(file: string): (typeof LAYERS)[number] | undefined {
  return LAYERS.find((layer) => layer.holds.some((h) => (h.endsWith('/') ? file.startsWith(h) : file === h)));
}

/** Package names cdp/ must not import (the npm package may name either). */
export const PUPPETEER_PACKAGES = ['puppeteer', 'puppeteer-core'];

interface ParsedModule {
  file: string;
  imports: { target: string; line: number }[];
  /** Imports of packages (bare specifiers), as written. */
  packages: { name: string; line: number }[];
  dynamicLoads: { what: string; line: number }[];
  state: { what: string; line: number }[];
}

function resolveRelative(from: string, specifier: string, known: Set<string>): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [`${base}.ts`, `${base}/index.ts`, base]) if (known.has(candidate)) return candidate;
  return null;
}

function isMutableContainer(init: ts.Expression | undefined): string | null {
  if (!init) return null;
  let e: ts.Expression = init;
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e)) e = e.expression;
  if (ts.isArrayLiteralExpression(e) && e.elements.length === 0) return '[]';
  if (ts.isObjectLiteralExpression(e) && e.properties.length === 0) return '{}';
  // A WeakMap/WeakSet keyed by an object (a session) lives and dies with it: a cache, not process state.
  if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && ['Map', 'Set', 'Array'].includes(e.expression.text) && !e.arguments?.length) {
    return `new ${e.expression.text}()`;
  }
  return null;
}

const parsedCache = new Map<string, ParsedModule>();

/** Parsed once per file text (the violation tests re-check the tree with one file changed). */
function parseModule(source: SourceFile, known: Set<string>): ParsedModule {
  const key = `${source.file}\0${source.text}`;
  let parsed = parsedCache.get(key);
  if (!parsed) parsedCache.set(key, (parsed = parseModuleText(source, known)));
  return parsed;
}

function parseModuleText(source: SourceFile, known: Set<string>): ParsedModule {
  const sf = ts.createSourceFile(source.file, source.text, ts.ScriptTarget.ES2022, true);
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const parsed: ParsedModule = { file: source.file, imports: [], packages: [], dynamicLoads: [], state: [] };
  const addImport = (spec: ts.Expression | undefined, node: ts.Node) => {
    if (!spec || !ts.isStringLiteral(spec)) return;
    if (!spec.text.startsWith('.')) parsed.packages.push({ name: spec.text, line: lineOf(node) });
    const target = resolveRelative(source.file, spec.text, known);
    if (target) parsed.imports.push({ target, line: lineOf(node) });
    else if (spec.text.startsWith('.'))
      parsed.imports.push({ target: path.posix.normalize(path.posix.join(path.posix.dirname(source.file), spec.text)), line: lineOf(node) });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) addImport(node.moduleSpecifier, node);
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      parsed.dynamicLoads.push({ what: 'import = require()', line: lineOf(node) });
    }
    if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) addImport(node.arguments[0], node);
      if (ts.isIdentifier(node.expression) && node.expression.text === 'require') parsed.dynamicLoads.push({ what: 'require()', line: lineOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  for (const statement of sf.statements) {
    if (ts.isVariableStatement(statement)) {
      const flags = statement.declarationList.flags;
      const names = statement.declarationList.declarations.map((d) => d.name.getText(sf)).join(', ');
      if (!(flags & ts.NodeFlags.Const)) parsed.state.push({ what: `top-level ${flags & ts.NodeFlags.Let ? 'let' : 'var'} ${names}`, line: lineOf(statement) });
      else {
        for (const d of statement.declarationList.declarations) {
          const container = isMutableContainer(d.initializer);
          if (container) parsed.state.push({ what: `top-level const ${d.name.getText(sf)} = ${container}`, line: lineOf(d) });
        }
      }
    }
    if (ts.isExpressionStatement(statement) && /^process\.(on|once|addListener)\(/.test(statement.expression.getText(sf))) {
      parsed.state.push({ what: 'top-level process hook', line: lineOf(statement) });
    }
  }
  return parsed;
}

/** Every cycle, one per strongly connected component, as a path a -> b -> ... -> a. */
function findCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  const strongConnect = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (graph.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) strongConnect(v);
  // Render each component as one concrete loop through it.
  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0];
    const pathTaken = [start];
    const seen = new Set([start]);
    let at = start;
    for (;;) {
      const next = (graph.get(at) ?? []).find((w) => members.has(w) && (w === start || !seen.has(w)));
      if (!next) break;
      pathTaken.push(next);
      if (next === start) break;
      seen.add(next);
      at = next;
    }
    return pathTaken;
  });
}

export function checkLayering(sources: SourceFile[]): Violation[] {
  const known = new Set(sources.map((s) => s.file));
  const modules = sources.map((s) => parseModule(s, known));
  const violations: Violation[] = [];
  const graph = new Map<string, string[]>();
  for (const m of modules) {
    graph.set(m.file, [...new Set(m.imports.map((i) => i.target).filter((t) => known.has(t)))]);
    for (const i of m.imports) {
      if (m.file.startsWith('cdp/') && i.target.startsWith('src/')) {
        violations.push({ rule: 'cdp-imports-src', file: m.file, detail: `line ${i.line} imports ${i.target}` });
      }
      if (m.file.startsWith('cdp/injected/') && !i.target.startsWith('cdp/injected/')) {
        violations.push({ rule: 'injected-imports-outside', file: m.file, detail: `line ${i.line} imports ${i.target}` });
      }
      const from = layerOf(m.file);
      const to = i.target.startsWith('src/') ? layerOf(i.target) : undefined;
      if (from && to && to !== from && !from.mayImport.includes(to.name)) {
        violations.push({
          rule: 'upward-import',
          file: m.file,
          detail: `line ${i.line} imports ${i.target}: ${from.name} may import ${[from.name, ...from.mayImport].join(', ')}, not ${to.name}`,
        });
      }
    }
    if (m.file.startsWith('src/') && !layerOf(m.file)) violations.push({ rule: 'no-layer', file: m.file, detail: 'add its folder to a layer of LAYERS' });
    for (const p of m.packages) {
      if (m.file.startsWith('cdp/injected/'))
        violations.push({ rule: 'injected-imports-outside', file: m.file, detail: `line ${p.line} imports the package ${p.name}` });
      else if (PUPPETEER_PACKAGES.some((name) => p.name === name || p.name.startsWith(`${name}/`))) {
        if (m.file.startsWith('cdp/')) violations.push({ rule: 'cdp-imports-puppeteer', file: m.file, detail: `line ${p.line} imports ${p.name}` });
        else if (!m.file.startsWith('src/browser/'))
          violations.push({ rule: 'puppeteer-outside-browser', file: m.file, detail: `line ${p.line} imports ${p.name}` });
      }
    }
    for (const d of m.dynamicLoads) violations.push({ rule: 'dynamic-load', file: m.file, detail: `line ${d.line}: ${d.what}` });
    const stateAllowed = m.file === ROOT_MODULE || m.file.startsWith('cdp/injected/') || m.file in ALLOWED_STATE;
    if (!stateAllowed) for (const s of m.state) violations.push({ rule: 'module-state', file: m.file, detail: `line ${s.line}: ${s.what}` });
  }
  for (const cycle of findCycles(graph)) violations.push({ rule: 'cycle', file: cycle[0], detail: cycle.join(' -> ') });
  return violations;
}
