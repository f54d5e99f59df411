/**
 * The selector differential, shared by the jest test and the bench: loads a
 * page in our Puppeteer browser and in Playwright's, stamps every element the
 * same way in both, generates selectors of every form on our side, and
 * resolves each one in both — Playwright's first match (what its non-strict
 * page methods act on) is the truth.
 */
import * as path from 'path';
import { buildSync } from 'esbuild';
import type { CDPSession, Page } from 'puppeteer-core';
import type { Page as PwPage } from 'playwright-core';
import { forgetUtilityWorlds, RUNTIME_GLOBAL, utilityContext } from '../../cdp/utilityWorld';
import type { GeneratedSelector } from './generateSelectors';

let generatorSource: string | undefined;
/** The generator built for the page: an expression evaluating to its exports. */
export function generatorBundle(): string {
  if (!generatorSource) {
    const out = buildSync({
      entryPoints: [path.join(__dirname, 'generateSelectors.ts')],
      bundle: true,
      write: false,
      format: 'iife',
      globalName: 'g',
      platform: 'browser',
      target: 'chrome100',
      logLevel: 'error',
    });
    generatorSource = `(() => { ${out.outputFiles[0].text}; return g; })()`;
  }
  return generatorSource;
}

export interface Case extends GeneratedSelector {
  page: string;
  ours: string | null;
  playwright: string | null;
}

/** Up to `perForm` selectors of each form, spread over the page's candidates (all when perForm is Infinity). */
export function sample(list: GeneratedSelector[], perForm: number): GeneratedSelector[] {
  const byForm = new Map<string, GeneratedSelector[]>();
  for (const s of list) {
    const forms = byForm.get(s.form) || [];
    if (!forms.some((x) => x.selector === s.selector)) forms.push(s);
    byForm.set(s.form, forms);
  }
  const out: GeneratedSelector[] = [];
  for (const forms of byForm.values()) {
    if (forms.length <= perForm) {
      out.push(...forms);
      continue;
    }
    const step = forms.length / perForm;
    for (let k = 0; k < perForm; k++) out.push(forms[Math.floor(k * step)]);
  }
  return out;
}

const errorText = (e: unknown) => 'ERROR: ' + String((e as Error)?.message ?? e).split('\n')[0];

/** Loads `url` in both, generates and resolves; returns one case per sampled selector. */
/** Evaluates in a fresh isolated world of the main frame (pages may patch the main world's built-ins). */
async function evaluateIsolated(session: Pick<CDPSession, 'send'>, expression: string): Promise<any> {
  const { frameTree } = await session.send('Page.getFrameTree');
  const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'selector-differential' });
  const reply = await session.send('Runtime.evaluate', { expression, contextId: executionContextId, returnByValue: true });
  if (reply.exceptionDetails) throw new Error(reply.exceptionDetails.exception?.description || reply.exceptionDetails.text);
  return reply.result.value;
}

/**
 * Loads `url` in both, generates and resolves; returns one case per sampled selector, or null when
 * Playwright cannot evaluate in the page at all (a page that breaks the built-ins its main world relies on).
 */
export async function comparePage(
  name: string,
  url: string,
  page: Page,
  session: CDPSession,
  pwPage: PwPage,
  pwSession: Pick<CDPSession, 'send'>,
  perForm: number,
): Promise<Case[] | null> {
  await Promise.all([page.goto(url, { waitUntil: 'load' }), pwPage.goto(url, { waitUntil: 'load' })]);
  if (
    !(await pwPage.evaluate('1 + 1').then(
      () => true,
      () => false,
    ))
  )
    return null;
  const bundle = generatorBundle();
  const [ourCount, theirCount] = await Promise.all([
    evaluateIsolated(session, `${bundle}.stampAll()`) as Promise<number>,
    evaluateIsolated(pwSession, `${bundle}.stampAll()`) as Promise<number>,
  ]);
  if (ourCount !== theirCount) throw new Error(`${name}: the two browsers built different DOMs (${ourCount} vs ${theirCount} elements)`);
  const generated = sample((await evaluateIsolated(session, `${bundle}.generateSelectors()`)) as GeneratedSelector[], perForm);
  const selectors = generated.map((g) => g.selector);
  // All selectors in one evaluation in the utility world; the page was just loaded, so its world is made anew.
  forgetUtilityWorlds(session);
  const contextId = await utilityContext(session);
  const oursJson = await session.send('Runtime.evaluate', {
    contextId,
    returnByValue: true,
    expression: `JSON.stringify(${JSON.stringify(selectors)}.map((s) => {
    try { const e = ${RUNTIME_GLOBAL}.queryFirst(s); return e ? e.getAttribute('data-sel-stamp') : null; } catch (err) { return 'ERROR: ' + err.message; } }))`,
  });
  const ours = JSON.parse(oursJson.result.value) as Array<string | null>;
  // Issued together: Playwright pipelines them, so the run is bounded by the page's work, not by round trips.
  const theirs = await Promise.all(
    selectors.map((s) => pwPage.$$eval(s, (els) => (els.length ? els[0].getAttribute('data-sel-stamp') : null)).catch((e) => errorText(e))),
  );
  return generated.map((g, k) => ({ ...g, page: name, ours: ours[k], playwright: theirs[k] }));
}

/** Same element, or both reject the selector. */
export const agrees = (c: Case) => c.ours === c.playwright || (!!c.ours?.startsWith('ERROR') && !!c.playwright?.startsWith('ERROR'));

export interface FormReport {
  form: string;
  cases: number;
  agreed: number;
}
export function byForm(cases: Case[]): FormReport[] {
  const m = new Map<string, FormReport>();
  for (const c of cases) {
    const r = m.get(c.form) || { form: c.form, cases: 0, agreed: 0 };
    r.cases++;
    if (agrees(c)) r.agreed++;
    m.set(c.form, r);
  }
  return [...m.values()].sort((a, b) => a.form.localeCompare(b.form));
}
