/**
 * `design-playbook-evidence doctor`: which browser a capture would use (path,
 * where it was found, its version), whether it launches (or, when attaching,
 * whether the address answers), and where captures would land (run root and
 * its markers), every setting in force with where it came from, and how the
 * bin loaded the program (the fast start or why not). Exits 0 when a capture
 * could run, 1 otherwise.
 */
import * as fs from 'fs';
import * as path from 'path';
import { execFile } from 'child_process';
import { resolveRunRoot, RUN_MARKERS } from '../boundary/runRoot';
import { BROWSER_VERSION_QUERY_MS } from '../common/time';
import { BrowserSession } from '../browser/fleet/browserSession';
import { attachTarget, browserSessionMode, captureTimeoutMs, fixedTime, maxParallel, type BrowserFlags } from '../browser/options';
import { readDevToolsActivePort } from '../browser/fleet/endpointConnection';
import type { Program, ProgramStart } from './program';
import { flagHelp, flagSpec, parseFlags, BROWSER_FLAGS_HELP } from './args';
import { flagsOf, settingsInForce, type SettingInForce } from './flags';
import { redactUrl } from '../common/redact';
import { sessionSettings, sessionsReport, sessionsUsable, type SessionListing, type SessionsReport } from '../contract/sessions';

export const DOCTOR_USAGE = `Usage: design-playbook-evidence doctor [--json]

Reports the browser a capture would use (path, source, version), whether it
launches or the attach address answers, and where captures would land
(run root, run markers), the clock captures run on (fixed or real date) and
how the program was loaded (dist/server.cjs: the fast start).
Exit status 0 when a capture could run, 1 otherwise.

${flagHelp(flagsOf('doctor', { browser: false }))}
${BROWSER_FLAGS_HELP}`;

export interface DoctorReport {
  ok: boolean;
  browser: {
    mode: 'launch' | 'attach' | 'none';
    where?: string;
    source?: string;
    version?: string;
    /** launch: did it start; attach: did it answer. */
    works: boolean;
    detail: string;
    /** Attached: captures run in new tabs of its default context (--browser-session, --auto-connect); error: asked for and not usable. */
    browserSession: { on: boolean; source?: string; error?: string };
    /** --auto-connect: the DevToolsActivePort file, whether it names an address (never the address's path). */
    autoConnect?: { file: string; found: boolean; port?: number; error?: string };
  };
  runRoot: {
    ok: boolean;
    root?: string;
    source?: string;
    markers: string[];
    evidenceDir?: string;
    warnings: string[];
    error?: string;
  };
  limits: { maxParallel: number; captureTimeoutMs: number };
  /** The fixed clock (--fixed-time / DESIGN_PLAYBOOK_FIXED_TIME): null when pages see the real date. */
  clock: { fixedTime: string | null; source?: string; error?: string };
  /** Every setting of src/common/settings.ts's ENVIRONMENT: its value in force and where it came from (a flag, the variable, the default). */
  settings: SettingInForce[];
  /** How the bin loaded the program; absent when doctor ran without the bin (a library call). */
  start?: ProgramStart;
  /** The saved sessions (--storage-state, --sessions-dir): names, origins, cookie counts, earliest expiry, never a value. Absent when none is configured. */
  sessions?: SessionsReport;
}

function binaryVersion(executable: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(executable, ['--version'], { timeout: BROWSER_VERSION_QUERY_MS }, (err, stdout) => resolve(err ? undefined : stdout.trim() || undefined));
  });
}

export async function doctorReport(env: NodeJS.ProcessEnv = process.env, flags: BrowserFlags = {}, start?: ProgramStart): Promise<DoctorReport> {
  const session = new BrowserSession(() => flags, env);
  const browser: DoctorReport['browser'] = { mode: 'none', works: false, detail: '', browserSession: { on: false } };
  try {
    browser.browserSession = { on: browserSessionMode(flags, env) };
    if (browser.browserSession.on)
      browser.browserSession.source = flags.browserSession
        ? '--browser-session'
        : attachTarget(flags, env)?.kind === 'auto-connect'
          ? 'implied by --auto-connect'
          : 'DESIGN_PLAYBOOK_BROWSER_SESSION';
  } catch (err) {
    browser.browserSession = { on: false, error: (err as Error).message };
  }
  try {
    const described = session.describe();
    browser.mode = described.mode;
    browser.where = described.where;
    browser.source = described.source;
    if (described.mode === 'launch') browser.version = await binaryVersion(described.where);
    if (described.activePortFile) {
      try {
        const port = Number(new URL(readDevToolsActivePort(described.activePortFile)).port);
        browser.autoConnect = { file: described.activePortFile, found: true, port };
      } catch (err) {
        browser.autoConnect = { file: described.activePortFile, found: false, error: (err as Error).message };
      }
    }
    const started = Date.now();
    const live = await session.acquire();
    const product = await live.version();
    if (described.browserSession) {
      // As a capture opens it: a background tab of the browser's own context, closed again.
      const opened = await session.newContextAndPage(live, { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' });
      await session.closePrepared(opened);
    } else {
      const context = await session.newContext(live);
      const page = await context.newPage();
      await page.goto('about:blank');
      await session.closeContext(context);
    }
    browser.works = true;
    browser.version ??= product;
    browser.detail =
      described.mode === 'launch'
        ? `launched ${described.headlessShell ? 'the headless shell' : 'headless'} ${product} in ${Date.now() - started} ms and opened a page`
        : described.browserSession
          ? `attached to ${product}, opened and closed a tab in its own session`
          : `attached to ${product}, opened and closed a page in its own context`;
  } catch (err) {
    browser.detail = err instanceof Error ? err.message : String(err);
  } finally {
    await session.shutdown().catch(() => undefined);
  }

  const resolved = resolveRunRoot(undefined, env);
  const runRoot: DoctorReport['runRoot'] = resolved.ok
    ? {
        ok: true,
        root: resolved.root,
        source: resolved.source,
        markers: RUN_MARKERS.filter((m) => fs.existsSync(path.join(resolved.root, m))),
        evidenceDir: path.join(resolved.root, 'evidence'),
        warnings: resolved.warnings,
      }
    : { ok: false, markers: [], warnings: [], error: resolved.error };
  let clock: DoctorReport['clock'];
  try {
    const fixed = fixedTime(flags, env);
    clock = fixed ? { fixedTime: fixed.iso, source: fixed.source } : { fixedTime: null };
  } catch (err) {
    clock = { fixedTime: null, error: (err as Error).message };
  }
  const sessions = sessionsReport(sessionSettings(flags, env));
  const configured = !!(sessions.storageState || sessions.sessionsDir);
  return {
    ok: browser.works && runRoot.ok && !clock.error && !browser.browserSession.error && sessionsUsable(sessions),
    browser,
    runRoot,
    limits: { maxParallel: maxParallel(env), captureTimeoutMs: captureTimeoutMs(env) },
    clock,
    settings: settingsInForce(flags, env, (key, value) =>
      key === 'cdpUrl'
        ? value
            .split(',')
            .map((url) => redactUrl(url.trim()))
            .join(',')
        : value,
    ),
    ...(start ? { start } : {}),
    ...(configured ? { sessions } : {}),
  };
}

/** A saved state in one line: its name, origins, cookie count and earliest expiry (never a value), or why it cannot be used. */
function describeSession(s: SessionListing): string {
  if (s.error) return `${s.name}: NOT USABLE — ${s.error}`;
  const where = [...new Set([...(s.origins ?? []), ...(s.cookieDomains ?? [])])].join(', ') || 'no origin';
  const expiry = s.earliestExpiry ? `, earliest expiry ${s.earliestExpiry}${s.expiredCookies ? ` (${s.expiredCookies} expired: save it again)` : ''}` : '';
  return `${s.name}: ${where}; ${s.cookies} cookie${s.cookies === 1 ? '' : 's'}${expiry}`;
}

/** The program's start in words: the fast start, or what ran instead and why. */
function describeStart(start: ProgramStart): string {
  switch (start.from) {
    case 'bundle': {
      const cache = {
        used: 'with its code cache (the fast start)',
        none: 'without a code cache (none made for these bytes and this Node)',
        rejected: 'without its code cache (V8 refused it)',
      };
      return `${start.file}, the program in one file, ${cache[start.cache]}`;
    }
    case 'modules':
      return `the compiled modules (the one-file bundle not used: ${start.why})`;
    case 'one file':
      return `${start.file}, the program and its dependencies in one file`;
  }
}

export function formatDoctorReport(report: DoctorReport): string {
  const lines: string[] = [];
  const b = report.browser;
  if (b.mode === 'none') {
    lines.push(`browser:   NOT FOUND`, `           ${b.detail}`);
  } else {
    lines.push(`browser:   ${b.mode === 'launch' ? 'launch' : 'attach to'} ${b.where} (${b.source})`);
    if (b.version) lines.push(`version:   ${b.version}`);
    lines.push(`${`${b.mode === 'launch' ? 'launches' : 'answers'}:`.padEnd(11)}${b.works ? 'yes' : 'NO'} — ${b.detail}`);
  }
  if (b.autoConnect)
    lines.push(
      `auto:      ${b.autoConnect.found ? `found ${b.autoConnect.file} (port ${b.autoConnect.port})` : `NOT FOUND — ${b.autoConnect.file}: ${b.autoConnect.error}`}`,
    );
  if (b.browserSession.error) lines.push(`session:   NOT USABLE — ${b.browserSession.error}`);
  else if (b.browserSession.on)
    lines.push(`session:   the browser's own (${b.browserSession.source}): each capture in a new tab of its default context, closed after`);
  else if (b.mode === 'attach') lines.push(`session:   isolated: each capture in a fresh context of its own (--browser-session uses the browser's own)`);
  const r = report.runRoot;
  if (r.ok) {
    lines.push(`run root:  ${r.root} (from ${r.source})`);
    lines.push(`markers:   ${r.markers.length ? r.markers.join(', ') : `none (${RUN_MARKERS.join(' or ')} marks a run folder)`}`);
    lines.push(`evidence:  ${r.evidenceDir}${fs.existsSync(r.evidenceDir!) ? '' : ' (created on the first capture)'}`);
    for (const w of r.warnings) lines.push(`warning:   ${w}`);
  } else {
    lines.push(`run root:  NOT USABLE — ${r.error}`);
  }
  lines.push(`limits:    ${report.limits.maxParallel} captures in parallel, ${report.limits.captureTimeoutMs} ms per capture`);
  const c = report.clock;
  if (c.error) lines.push(`clock:     NOT USABLE — ${c.error}`);
  else if (c.fixedTime) lines.push(`clock:     fixed at ${c.fixedTime} (from ${c.source}): Date starts there and Math.random is seeded in every capture`);
  else lines.push(`clock:     virtual while frozen; pages see the real date (--fixed-time or DESIGN_PLAYBOOK_FIXED_TIME fixes it)`);
  if (report.start) lines.push(`start:     ${describeStart(report.start)}`);
  const s = report.sessions;
  if (s?.storageState) lines.push(`state:     ${describeSession(s.storageState)} (${s.storageState.file})`);
  if (s?.sessionsDir) {
    if (s.sessionsDir.error) lines.push(`sessions:  NOT USABLE — ${s.sessionsDir.error}`);
    else
      lines.push(
        `sessions:  ${s.sessionsDir.sessions.length} in ${s.sessionsDir.dir}${s.sessionsDir.sessions.length ? '' : ' (none saved yet: login --save-storage DIR/NAME.json)'}`,
      );
    for (const one of s.sessionsDir.sessions) lines.push(`           ${describeSession(one)}`);
  }
  lines.push('settings:');
  const width = Math.max(...report.settings.map((setting) => setting.name.length)) + 2;
  for (const setting of report.settings) {
    const shown = setting.from !== 'default' ? `${setting.value} (from ${setting.from})` : setting.value ? `unset: ${setting.value}` : 'unset';
    lines.push(`  ${setting.name.padEnd(width)}${shown}`);
  }
  lines.push(report.ok ? 'ready: captures can run' : 'not ready: fix the lines above');
  return lines.join('\n') + '\n';
}

export async function runDoctor(argv: string[], program: Program): Promise<number> {
  const flags = parseFlags(argv, flagSpec('doctor'));
  if (flags.switches.has('help')) {
    process.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  const report = await doctorReport(process.env, program.browserFlags, program.start);
  process.stdout.write(flags.switches.has('json') ? JSON.stringify(report, null, 2) + '\n' : formatDoctorReport(report));
  return report.ok ? 0 : 1;
}
