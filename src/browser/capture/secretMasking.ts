/**
 * Keeping the secrets' values (--secrets) out of what the page gives the
 * evidence, on the browser side:
 *
 * - checkPageTextForSecrets: a page that shows a value outside its field
 *   (echoes it in its text) fails the capture closed, before anything is
 *   taken: a screenshot would show it in pixels, which no byte scan finds;
 * - maskSecretFields: every field holding a value is painted over with a
 *   solid box over its bounding box, as Playwright's `mask` option paints
 *   (MASK_COLOR): for a screenshot, removed after the shot; in a trace, from
 *   before a secret is typed (every text field then) and after each action,
 *   so the film strip never shows a value.
 *
 * Both run in an isolated world of their own, so the page's scripts neither
 * see the values handed in nor change what is read. The byte scan before the
 * commit (src/boundary/secretGuard.ts) is the last line behind these.
 */
import type { CdpSession } from '../../../cdp/types';
import type { SecretStore } from '../../common/secrets';
import { EvidenceError } from '../../common/errors';

/** The box painted over a field holding a secret (Playwright's default mask colour). */
export const MASK_COLOR = '#FF00FF';

/** The page shows a secret outside its field: the capture fails closed, naming the secret, never the value. */
export class SecretOnPage extends EvidenceError<'secret-on-page'> {
  constructor(name: string, where: string) {
    super(
      'secret-on-page',
      `secret ${name} is shown on the page outside its field (${where}); the capture failed closed and nothing was written, so no evidence carries it`,
    );
    this.name = 'SecretOnPage';
  }
}

const WORLD_NAME = '__design_playbook_secrets__';

interface FrameNode {
  frame: { id: string; url: string };
  childFrames?: FrameNode[];
}

/** Every frame of the page this session reaches (out-of-process frames are the guard's). */
async function frameIds(cdp: CdpSession): Promise<string[]> {
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: FrameNode };
  const ids: string[] = [];
  const walk = (node: FrameNode) => {
    ids.push(node.frame.id);
    for (const child of node.childFrames ?? []) walk(child);
  };
  walk(frameTree);
  return ids;
}

/** Calls `fn` with `args` in an isolated world of `frameId`; its value back. */
async function callInWorld<T>(cdp: CdpSession, frameId: string, fn: string, args: unknown[]): Promise<T | undefined> {
  const { executionContextId } = (await cdp.send('Page.createIsolatedWorld', { frameId, worldName: WORLD_NAME, grantUniveralAccess: false })) as {
    executionContextId: number;
  };
  const reply = (await cdp.send('Runtime.callFunctionOn', {
    functionDeclaration: fn,
    executionContextId,
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
    awaitPromise: false,
  })) as { result: { value?: T }; exceptionDetails?: unknown };
  return reply.exceptionDetails ? undefined : reply.result.value;
}

/**
 * The page's text as a person reads it: the title and the rendered text of
 * the body (input and textarea values are not in it), and the text of each
 * editable element, which is a field of its own.
 */
const PAGE_TEXT = `function () {
  const fields = [];
  for (const el of document.querySelectorAll('[contenteditable]')) {
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) fields.push(el.innerText);
  }
  return { text: [document.title, document.body ? document.body.innerText : ''].join('\\n'), fields };
}`;

const occurrences = (text: string, value: string) => text.split(value).length - 1;

/** Throws SecretOnPage when a frame's text holds a loaded secret's value. */
export async function checkPageTextForSecrets(cdp: CdpSession, secrets: SecretStore): Promise<void> {
  const entries = secrets.entries();
  if (!entries.length) return;
  for (const frameId of await frameIds(cdp)) {
    const read = await callInWorld<{ text: string; fields: string[] }>(cdp, frameId, PAGE_TEXT, []).catch(() => undefined);
    if (!read || typeof read.text !== 'string') continue;
    for (const [name, value] of entries) {
      // Shown more often than the editable fields hold it: some of it is outside them.
      const inFields = read.fields.reduce((n, field) => n + occurrences(field, value), 0);
      if (occurrences(read.text, value) > inFields) throw new SecretOnPage(name, "in the page's text");
    }
  }
}

/**
 * Paints a box over every input, textarea and editable element (open shadow
 * roots included) whose value holds one of `values` (every one of them with
 * `everyField`), after removing the boxes painted before, in one task (so no
 * frame shows the fields between the two); answers how many it painted.
 */
const PAINT_OVER = `function (values, color, marker, everyField) {
  for (const box of document.querySelectorAll('[' + marker + ']')) box.remove();
  const holds = (text) => everyField || (typeof text === 'string' && values.some((v) => text.includes(v)));
  const found = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const tag = el.tagName;
      if (tag === 'TEXTAREA' || (tag === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'hidden', 'range', 'color', 'file'].includes(el.type))) {
        if (holds(el.value)) found.push(el);
      } else if (el.isContentEditable && el.parentElement && !el.parentElement.isContentEditable && holds(el.innerText)) found.push(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  const html = document.documentElement;
  // Document coordinates, or html's own when it is the boxes' containing block.
  const origin = getComputedStyle(html).position === 'static' ? { left: -scrollX, top: -scrollY } : html.getBoundingClientRect();
  let painted = 0;
  for (const el of found) {
    for (const r of el.getClientRects()) {
      const box = document.createElement('div');
      box.setAttribute(marker, '');
      box.style.cssText = 'position:absolute;margin:0;padding:0;border:0;pointer-events:none;z-index:2147483647;' +
        'background:' + color + ';left:' + (r.left - origin.left) + 'px;top:' + (r.top - origin.top) + 'px;' +
        'width:' + r.width + 'px;height:' + r.height + 'px';
      html.appendChild(box);
      painted++;
    }
  }
  return painted;
}`;

const UNPAINT = `function (marker) {
  for (const box of document.querySelectorAll('[' + marker + ']')) box.remove();
}`;

const MASK_MARKER = 'data-design-playbook-mask';

/**
 * Paints over the fields of every frame this session reaches holding a
 * loaded secret's value (every text field with `everyField`: before a secret
 * is typed, so no frame shows it going in), replacing the boxes painted
 * before; answers the function that removes them again.
 */
export async function maskSecretFields(cdp: CdpSession, secrets: SecretStore, options: { everyField?: boolean } = {}): Promise<() => Promise<void>> {
  const values = secrets.entries().map(([, value]) => value);
  if (!values.length) return async () => undefined;
  const painted: string[] = [];
  const [main, ...subframes] = await frameIds(cdp);
  for (const frameId of [main, ...subframes]) {
    const paint = callInWorld<number>(cdp, frameId, PAINT_OVER, [values, MASK_COLOR, MASK_MARKER, options.everyField === true]);
    // The main frame's failure fails the capture; a subframe this session cannot enter (out of process, gone) is left.
    const count = frameId === main ? await paint : await paint.catch(() => 0);
    if (count) painted.push(frameId);
  }
  return async () => {
    for (const frameId of painted) await callInWorld(cdp, frameId, UNPAINT, [MASK_MARKER]).catch(() => undefined);
  };
}
