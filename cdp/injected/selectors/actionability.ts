/**
 * Playwright's actionability rules, in the page (the selector world): the
 * states an action waits for (visible, enabled, editable), the box that must
 * hold still between two looks a frame apart (stable), the click point and
 * the hit-target check (the element at that point must be the target or
 * inside it, across open shadow roots), and the element previews Playwright
 * prints in its errors (`<div class="overlay"></div> intercepts pointer
 * events`). Visibility and disabled-ness are the same functions the selector
 * engine (`:visible`, `visible=`, `[disabled]`) and the aria snapshot use.
 *
 * The host (src/browser/capture/actionRunner.ts) calls these through the runtime
 * (cdp/injected/runtime.ts) and lets the page's time pass between looks, so
 * nothing here waits on requestAnimationFrame (the page may run on a virtual
 * clock). What is wrong comes back as a typed code with the facts it needs
 * (the element's preview); the sentences are the host's.
 */
import { withCaches } from '../aria/caches';
import { parentOrHost } from '../aria/dom';
import { ariaRole, disabledState } from '../aria/roles';
import { isVisibleBox } from '../aria/visibility';

/** What an action waits for before it acts. */
export interface Needs {
  visible?: boolean;
  enabled?: boolean;
  editable?: boolean;
}

/** A state the element lacks (Playwright's call log names each). */
export type MissingState = 'not-attached' | 'not-visible' | 'not-enabled' | 'inert' | 'read-only';

/**
 * Why an element cannot be acted on: a state it lacks yet (looked at again
 * until the budget ends), or `not-editable-element` for an element that can
 * never be edited (fill fails at once).
 */
export type StateProblem = { code: MissingState } | { code: 'not-editable-element' };

/** Why the click point is not there yet, a frame after the element was scrolled into view. */
export type PointProblem =
  | { code: 'not-attached' | 'not-stable' | 'outside-viewport' | 'not-visible' }
  /** A click at the point lands on `hit` (inside `subtreeOf`, when that is not the hit element itself). */
  | { code: 'intercepted'; hit: string; subtreeOf?: string };

export interface Point {
  x: number;
  y: number;
}

/** A page on the wall clock that draws no frame within this long is looked at anyway (settledPointAfterFrame). */
const REAL_FRAME_WAIT_MS = 250;

const READONLY_ROLES = [
  'checkbox',
  'combobox',
  'grid',
  'gridcell',
  'listbox',
  'radiogroup',
  'slider',
  'spinbutton',
  'textbox',
  'columnheader',
  'rowheader',
  'searchbox',
  'switch',
  'treegrid',
];

/** Playwright's retargeting: a click on text inside a button acts on the button; a label stands for its control. */
export function retarget(e: Element, behavior: 'none' | 'follow-label' | 'no-follow-label' | 'button-link'): Element {
  if (behavior === 'none') return e;
  let element = e;
  if (!element.matches('input, textarea, select') && !(element as HTMLElement).isContentEditable) {
    if (behavior === 'button-link') element = element.closest('button, [role=button], a, [role=link]') || element;
    else element = element.closest('button, [role=button], [role=checkbox], [role=radio]') || element;
  }
  if (behavior === 'follow-label') {
    if (
      !element.matches('a, input, textarea, button, select, option, optgroup, [role=link], [role=button], [role=checkbox], [role=radio]') &&
      !(element as HTMLElement).isContentEditable
    ) {
      const label = element.closest('label') as HTMLLabelElement | null;
      if (label && label.control) element = label.control;
    }
  }
  return element;
}

/** Inside an [inert] subtree (across shadow hosts), as Playwright's isElementInert reads it. */
function isInert(e: Element): boolean {
  for (let p: Element | null = e; p; p = parentOrHost(p)) if (p.hasAttribute('inert')) return true;
  return false;
}

/** Playwright's getReadonly: true/false, or 'error' for an element that cannot be edited at all. */
function readonlyState(e: Element): boolean | 'error' {
  const tag = e.nodeName.toUpperCase();
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return e.hasAttribute('readonly');
  if (READONLY_ROLES.includes(ariaRole(e))) return (e.getAttribute('aria-readonly') || '').toLowerCase() === 'true';
  if ((e as HTMLElement).isContentEditable) return false;
  return 'error';
}

/** Null when `e` has every state in `needs`, else the first it lacks, in the order Playwright checks them. */
export function missingState(e: Element, needs: Needs): StateProblem | null {
  return withCaches((): StateProblem | null => {
    if (!e.isConnected) return { code: 'not-attached' };
    if (needs.visible && !isVisibleBox(e)) return { code: 'not-visible' };
    const control = retarget(e, 'follow-label');
    if (needs.enabled && disabledState(control)) return { code: 'not-enabled' };
    // Playwright waits for "non-inert" wherever it waits for enabled.
    if (needs.enabled && isInert(e)) return { code: 'inert' };
    if (needs.editable) {
      const readonly = readonlyState(control);
      if (readonly === 'error') return { code: 'not-editable-element' };
      if (readonly) return { code: 'read-only' };
    }
    return null;
  });
}

const BOOLEAN_ATTRIBUTES = new Set(['checked', 'selected', 'disabled', 'readonly', 'multiple']);
const AUTO_CLOSING = new Set([
  'AREA',
  'BASE',
  'BR',
  'COL',
  'COMMAND',
  'EMBED',
  'HR',
  'IMG',
  'INPUT',
  'KEYGEN',
  'LINK',
  'MENUITEM',
  'META',
  'PARAM',
  'SOURCE',
  'TRACK',
  'WBR',
]);
const oneLine = (s: string) => s.replace(/\n/g, '↵').replace(/\t/g, '⇆');
function trimWithEllipsis(s: string, cap: number): string {
  const chars = [...s];
  return chars.length > cap ? chars.slice(0, cap - 1).join('') + '…' : s;
}

/** An element as Playwright's errors print it: `<button id="go" disabled>Go</button>`. */
export function previewNode(node: Node): string {
  if (node.nodeType === 3) return oneLine(`#text=${node.nodeValue || ''}`);
  if (node.nodeType !== 1) return oneLine(`<${node.nodeName.toLowerCase()} />`);
  const e = node as Element;
  const attrs: string[] = [];
  for (let i = 0; i < e.attributes.length; i++) {
    const { name, value } = e.attributes[i];
    if (name === 'style') continue;
    attrs.push(!value && BOOLEAN_ATTRIBUTES.has(name) ? ` ${name}` : ` ${name}="${value}"`);
  }
  attrs.sort((a, b) => a.length - b.length);
  const attrText = trimWithEllipsis(attrs.join(''), 500);
  const tag = e.nodeName.toLowerCase();
  if (AUTO_CLOSING.has(e.nodeName)) return oneLine(`<${tag}${attrText}/>`);
  const children = e.childNodes;
  let onlyText = false;
  if (children.length <= 5) {
    onlyText = true;
    for (let i = 0; i < children.length; i++) onlyText = onlyText && children[i].nodeType === 3;
  }
  const text = onlyText ? e.textContent || '' : children.length ? '…' : '';
  return oneLine(`<${tag}${attrText}>${trimWithEllipsis(text, 50)}</${tag}>`);
}

// The box each target had at the last look (per document: this module lives in the page's selector world).
const lastBoxes = new WeakMap<Element, string>();
const boxOf = (e: Element) => {
  const r = e.getBoundingClientRect();
  return `${r.top},${r.left},${r.width},${r.height}`;
};

/** Playwright's alternating scroll on retries: first "if needed", then end, center, start. */
const FORCED_SCROLL: Array<ScrollLogicalPosition | undefined> = [undefined, 'end', 'center', 'start'];

/**
 * Scrolls the target into view (retry `attempt` picks the alignment, as
 * Playwright alternates them) and remembers its box for `settledPoint`.
 */
export function scrollAndRemember(e: Element, attempt: number): void {
  const block = FORCED_SCROLL[attempt % FORCED_SCROLL.length];
  if (block) e.scrollIntoView({ block, inline: block, behavior: 'instant' as ScrollBehavior });
  else if ((e as any).scrollIntoViewIfNeeded) (e as any).scrollIntoViewIfNeeded(true);
  else e.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
  lastBoxes.set(e, boxOf(e));
}

const rootOf = (e: Element) => e.getRootNode() as Document | ShadowRoot;

/** Playwright's expectHitTarget: null when a click at the point reaches `target`, else who receives it. */
export function hitTarget(x: number, y: number, target: Element): { hit: string; subtreeOf?: string } | null {
  const roots: Array<Document | ShadowRoot> = [];
  for (let p: Element | null = target; p;) {
    const root = rootOf(p);
    if (!root || (root.nodeType !== 9 && root.nodeType !== 11)) break;
    roots.push(root);
    if (root.nodeType === 9) break;
    p = (root as ShadowRoot).host;
  }
  let hit: Element | undefined;
  for (let index = roots.length - 1; index >= 0; index--) {
    const root = roots[index];
    const elements = root.elementsFromPoint(x, y);
    const single = root.elementFromPoint(x, y);
    if (single && elements[0] && parentOrHost(single) === elements[0]) {
      const style = getComputedStyle(single);
      if (style && style.display === 'contents') elements.unshift(single);
    }
    if (elements[0] && elements[1] === single && roots.slice(index).some((r) => (r as ShadowRoot).host === elements[0])) elements.shift();
    const inner = elements[0];
    if (!inner) break;
    hit = inner;
    if (index && inner !== (roots[index - 1] as ShadowRoot).host) break;
  }
  const hitParents: Element[] = [];
  while (hit && hit !== target) {
    hitParents.push(hit);
    hit = ((hit as any).assignedSlot as Element | null) ?? parentOrHost(hit) ?? undefined;
  }
  if (hit === target) return null;
  const description = previewNode(hitParents[0] || document.documentElement);
  let rootDescription: string | undefined;
  for (let e: Element | null = target; e; e = parentOrHost(e)) {
    const index = hitParents.indexOf(e);
    if (index !== -1) {
      if (index > 1) rootDescription = previewNode(hitParents[index - 1]);
      break;
    }
  }
  return rootDescription ? { hit: description, subtreeOf: rootDescription } : { hit: description };
}

/**
 * The element's boxes as Playwright reads them, each four corners (x, y pairs,
 * CSS px from the viewport's top-left): the protocol's content quads
 * (DOM.getContentQuads), one per fragment — an inline element's text runs and
 * each atomic inline inside it (a checkbox in a label) apart, where
 * getClientRects gives one box per line.
 */
export type Quad = number[];

/**
 * A frame after `scrollAndRemember`: the click point (centre of the first box
 * with an area, clipped to the viewport, as Playwright takes the first content
 * quad) when the box held still and the point reaches the element; else why
 * not (a box that moved, a point outside the viewport, another element that
 * would receive the click). `quads` are the element's content quads; without
 * them (an element the host cannot describe), its client rects.
 */
export function settledPoint(e: Element, quads?: Quad[]): Point | PointProblem {
  if (!e.isConnected) return { code: 'not-attached' };
  const now = boxOf(e);
  const before = lastBoxes.get(e);
  lastBoxes.set(e, now);
  if (before !== now) return { code: 'not-stable' };
  const boxes = quads ?? Array.from(e.getClientRects(), (r) => [r.left, r.top, r.right, r.top, r.right, r.bottom, r.left, r.bottom]);
  const point = firstPointInViewport(boxes, innerWidth, innerHeight);
  if (!point) return { code: boxes.length ? 'outside-viewport' : 'not-visible' };
  const intercepted = hitTarget(point.x, point.y, retarget(e, 'button-link'));
  return intercepted ? { code: 'intercepted', ...intercepted } : point;
}

/** The centre of the first quad whose part inside the viewport has an area (more than 0.99 px², as Playwright allows 1×1 elements). */
export function firstPointInViewport(quads: Quad[], width: number, height: number): Point | null {
  for (const quad of quads) {
    const xs = [0, 2, 4, 6].map((i) => Math.min(Math.max(quad[i], 0), width));
    const ys = [1, 3, 5, 7].map((i) => Math.min(Math.max(quad[i], 0), height));
    // The shoelace formula over the clipped corners.
    let area = 0;
    for (let i = 0; i < 4; i++) area += xs[i] * ys[(i + 1) % 4] - xs[(i + 1) % 4] * ys[i];
    if (Math.abs(area) / 2 > 0.99) return { x: (xs[0] + xs[1] + xs[2] + xs[3]) / 4, y: (ys[0] + ys[1] + ys[2] + ys[3]) / 4 };
  }
  return null;
}

/**
 * settledPoint at the next animation frame (this world's own
 * requestAnimationFrame: real frames, for a page on the wall clock; a page on
 * the virtual clock has its time moved by the host instead). A page that
 * draws no frame within REAL_FRAME_WAIT_MS is looked at then.
 */
export function settledPointAfterFrame(e: Element, quads?: Quad[]): Promise<Point | PointProblem> {
  return new Promise((resolve) => {
    let done = false;
    const look = () => {
      if (done) return;
      done = true;
      resolve(settledPoint(e, quads));
    };
    requestAnimationFrame(look);
    setTimeout(look, REAL_FRAME_WAIT_MS);
  });
}

const SET_VALUE_TYPES = ['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week'];
const TYPE_INTO_TYPES = ['', 'email', 'number', 'password', 'search', 'tel', 'text', 'url'];

/** Why a field cannot be filled with the value (Playwright refuses each). */
export type FillProblem =
  | { code: 'input-type-not-fillable'; type: string }
  | { code: 'not-a-number' }
  | { code: 'malformed-value'; type: string; value: string }
  | { code: 'not-a-text-field' };

/**
 * Playwright's fill, in the page: inputs whose type has no free text get the
 * value set with `input` + `change` ('done'); other fields get focus and their
 * content selected ('needs-input': the host inserts the text). What cannot be
 * filled is a FillProblem.
 */
export function prepareFill(node: Element, value: string): 'done' | 'needs-input' | FillProblem {
  const e = retarget(node, 'follow-label');
  if (e.nodeName.toLowerCase() === 'input') {
    const input = e as HTMLInputElement;
    const type = input.type.toLowerCase();
    if (!TYPE_INTO_TYPES.includes(type) && !SET_VALUE_TYPES.includes(type)) return { code: 'input-type-not-fillable', type };
    if (type === 'number' && Number.isNaN(Number(value.trim()))) return { code: 'not-a-number' };
    if (SET_VALUE_TYPES.includes(type)) {
      const text = value.trim();
      input.focus();
      input.value = text;
      if (input.value !== text) return { code: 'malformed-value', type, value: text };
      e.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      e.dispatchEvent(new Event('change', { bubbles: true }));
      return 'done';
    }
  } else if (e.nodeName.toLowerCase() !== 'textarea' && !(e as HTMLElement).isContentEditable) {
    return { code: 'not-a-text-field' };
  }
  (e as HTMLElement).focus();
  if (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) {
    e.select();
  } else {
    const range = document.createRange();
    range.selectNodeContents(e);
    const selection = window.getSelection();
    if (selection) {
      selection.removeAllRanges();
      selection.addRange(range);
    }
  }
  return 'needs-input';
}

/** Focus for press (Playwright focuses the element as it is, without waiting for states). */
export function focusTarget(node: Element): void {
  const e = retarget(node, 'follow-label') as HTMLElement;
  if (e.ownerDocument.activeElement !== e && typeof e.focus === 'function') e.focus();
}

/** What a choice on a <select> came to: made, or why not (the options there are, to wait for late ones and to list them). */
export type SelectOutcome =
  { code: 'selected' } | { code: 'not-a-select'; tag: string } | { code: 'no-such-option'; options: string[] } | { code: 'option-disabled' };

/**
 * Chooses on a native <select> (a label stands for its control): the option
 * whose value and/or label matches, then fires `input` and `change`.
 */
export function selectOption(node: Element, wantValue: string | null, wantLabel: string | null): SelectOutcome {
  const el = retarget(node, 'follow-label');
  if (el.nodeName !== 'SELECT') return { code: 'not-a-select', tag: el.nodeName.toLowerCase() };
  const select = el as HTMLSelectElement;
  const normalize = (s: string) => s.replace(/\s+/g, ' ').trim();
  const options = Array.from(select.options);
  const match = options.find(
    (o) => (wantValue === null || o.value === wantValue) && (wantLabel === null || o.label === wantLabel || normalize(o.label) === normalize(wantLabel)),
  );
  if (!match) return { code: 'no-such-option', options: options.map((o) => `${o.value}=${normalize(o.label)}`).slice(0, 10) };
  if (match.disabled) return { code: 'option-disabled' };
  for (const o of options) o.selected = o === match;
  select.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
  return { code: 'selected' };
}
