/**
 * Reading declared literals: each literal inside a `design` array is either
 * comparable (with the value the browser would paint) or undecidable with a
 * reason. A literal is comparable only when the browser paints it exactly as
 * written; anything else is named, never normalized and never dropped.
 *
 * Decisions (each has a test in test/probe/literals.test.ts):
 * - Number grammar (px values and rgb() channels alike): the seed's CSS
 *   <number> form `[+-]?digits[.digits][e[+-]digits]`, ASCII digits only.
 *   `.5` and `16.` are outside that grammar and so undecidable (conservative:
 *   undecidable never claims conformance).
 * - Only CSS whitespace (space, tab, LF, CR, form feed) is trimmed, so NBSP or
 *   vertical tab inside the literal make it undecidable. JS `trim()` is not
 *   used because it strips both.
 * - A px string needs the `px` unit (ASCII case-insensitive, as in CSS). A
 *   bare numeric string such as "16" is undecidable: CSS requires a unit for a
 *   non-zero length, and the declaration offers `16` (a JSON number) for that.
 * - JSON numbers must be finite. Negative lengths are invalid for font-size
 *   and border-radius, so the browser never paints them. Values above what
 *   Chromium paints (font-size clamps at 10000px, lengths at the LayoutUnit
 *   maximum 33554431.984375px) or that overflow to Infinity are undecidable.
 * - Colours: opaque `#rgb`/`#rrggbb` (and `#rgba`/`#rrggbbaa` whose alpha is
 *   f/ff) and `rgb()`/`rgba()` in legacy comma syntax (all numbers or all
 *   percentages) or modern space syntax (numbers, percentages, `none`) with
 *   alpha 1 or 100% or absent. Any alpha below 1 is translucent and
 *   undecidable — even where Chromium's 8-bit alpha would paint it opaque —
 *   and is never read as its opaque channels. Channels are clamped to 0..255
 *   and rounded to the nearest integer with ties up (12.5 -> 13, 50% -> 128),
 *   which is Chromium's own serialization (verified in test/probe).
 * - Named colours, hsl()/hwb()/lab()/color()/..., `transparent`,
 *   `currentcolor`, `var()` and `calc()` are undecidable with a reason.
 */
import type { DesignAxis } from '../contract/designBinding';

export type PxLiteral = { comparable: true; px: number } | { comparable: false; reason: string };
export type ColorLiteral = { comparable: true; rgb: [number, number, number]; serialized: string } | { comparable: false; reason: string };

/** Largest font-size Chromium computes; larger declared values are clamped, so never painted as written. */
export const CHROMIUM_MAX_FONT_SIZE_PX = 10000;
/** Largest length Chromium lays out (LayoutUnit: int32 with 6 fractional bits). */
export const CHROMIUM_MAX_LENGTH_PX = 2147483647 / 64;

const CSS_WHITESPACE = ' \t\n\r\f';
const CSS_NUMBER_SOURCE = '[+-]?[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
const PX_STRING = new RegExp(`^(${CSS_NUMBER_SOURCE})px$`, 'i');
const CSS_NUMBER = new RegExp(`^${CSS_NUMBER_SOURCE}$`);

/** Removes leading/trailing CSS whitespace only (never NBSP, VT or other Unicode spaces). */
export function trimCssWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && CSS_WHITESPACE.includes(text[start])) start++;
  while (end > start && CSS_WHITESPACE.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

/** Names the first character that keeps a literal from being a CSS token, for the reason text. */
function describeForeignCharacter(text: string): string | null {
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code > 0x7e || (code < 0x20 && !CSS_WHITESPACE.includes(ch)) || code === 0x0b) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      if (/\p{Nd}/u.test(ch)) return `non-ASCII digit U+${hex}`;
      if (/\s/u.test(ch)) return `U+${hex}, which is not CSS whitespace`;
      return `character U+${hex}`;
    }
  }
  return null;
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** JS spelling of a non-finite number, for literals JSON cannot carry. */
function numberText(value: number): string {
  return Number.isNaN(value) ? 'NaN' : String(value);
}

function pxLimit(axis: 'fontSizes' | 'radii'): { max: number; what: string } {
  return axis === 'fontSizes'
    ? { max: CHROMIUM_MAX_FONT_SIZE_PX, what: `Chromium clamps font-size at ${CHROMIUM_MAX_FONT_SIZE_PX}px` }
    : { max: CHROMIUM_MAX_LENGTH_PX, what: `Chromium clamps lengths at ${CHROMIUM_MAX_LENGTH_PX}px` };
}

function checkPxRange(px: number, axis: 'fontSizes' | 'radii', written: string): PxLiteral {
  if (!Number.isFinite(px)) {
    return { comparable: false, reason: `${written} overflows to ${numberText(px)}; the browser never paints it as written` };
  }
  if (px < 0) {
    const property = axis === 'fontSizes' ? 'font-size' : 'border-radius';
    return { comparable: false, reason: `negative length ${written} is invalid for ${property}; the browser never paints it` };
  }
  const limit = pxLimit(axis);
  if (px > limit.max) {
    return { comparable: false, reason: `${written} exceeds what the browser paints (${limit.what})` };
  }
  // -0 and 0 are the same length.
  return { comparable: true, px: px === 0 ? 0 : px };
}

/** Classifies one `fontSizes` or `radii` literal. */
export function classifyPxLiteral(literal: unknown, axis: 'fontSizes' | 'radii'): PxLiteral {
  if (typeof literal === 'number') {
    if (!Number.isFinite(literal)) {
      return { comparable: false, reason: `${numberText(literal)} is not a finite number (JSON overflow parses to Infinity); the browser never paints it` };
    }
    return checkPxRange(literal, axis, `${literal}px`);
  }
  if (typeof literal !== 'string') {
    return { comparable: false, reason: `a ${axis} literal must be a finite number or a "<number>px" string, not ${describeJsonType(literal)}` };
  }
  const token = trimCssWhitespace(literal);
  const match = PX_STRING.exec(token);
  if (match) return checkPxRange(Number(match[1]), axis, token);
  return { comparable: false, reason: explainNonPxString(token) };
}

function explainNonPxString(token: string): string {
  const base = 'not a complete CSS number followed by px';
  if (token === '') return `empty literal: ${base}`;
  const foreign = describeForeignCharacter(token);
  if (foreign) return `contains ${foreign}: ${base}`;
  if (token.includes('_')) return `'_' is not a digit separator in CSS: ${base}`;
  if (/^var\(/i.test(token)) return `token reference ${token} is not resolved by the probe; declare the px value`;
  if (/^(?:calc|min|max|clamp|env)\(/i.test(token)) return `math function ${token} is not resolved by the probe; declare the px value`;
  if (CSS_NUMBER.test(token)) {
    return `bare number without a unit: CSS needs a unit on a non-zero length; write ${token} as a JSON number or "${token}px"`;
  }
  const unit = new RegExp(`^${CSS_NUMBER_SOURCE}([a-zA-Z%]+)$`).exec(token);
  if (unit) return `unit '${unit[1]}' is not px; relative and other units are not resolved by the probe`;
  if (new RegExp(`^${CSS_NUMBER_SOURCE}[${CSS_WHITESPACE}]+px$`, 'i').test(token)) {
    return `whitespace between the number and px: not one CSS dimension token`;
  }
  if (/^[+-]?(?:inf(?:inity)?|nan)/i.test(token)) return `${token} is not a CSS number (CSS has no inf or NaN literal)`;
  return base;
}

/** Rounds a channel the way Chromium serializes it: clamp to 0..255, nearest integer, ties up. */
export function serializeChannel(value: number): number {
  const clamped = Math.min(255, Math.max(0, value));
  return Math.floor(clamped + 0.5);
}

function rgbText(rgb: [number, number, number]): string {
  return `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`;
}

function opaque(rgb: [number, number, number]): ColorLiteral {
  return { comparable: true, rgb, serialized: rgbText(rgb) };
}

const TRANSLUCENT = 'translucent: the painted colour depends on what is behind it, so it is not read as its opaque channels';

function classifyHex(token: string): ColorLiteral {
  const digits = token.slice(1);
  if (!/^[0-9a-fA-F]+$/.test(digits) || ![3, 4, 6, 8].includes(digits.length)) {
    return { comparable: false, reason: `${token} is not a hex colour (#rgb, #rgba, #rrggbb or #rrggbbaa)` };
  }
  const full =
    digits.length <= 4
      ? digits
          .split('')
          .map((d) => d + d)
          .join('')
      : digits;
  const channels = [0, 2, 4, 6].slice(0, full.length / 2).map((i) => parseInt(full.slice(i, i + 2), 16));
  if (channels.length === 4 && channels[3] !== 255) {
    return { comparable: false, reason: `hex alpha ${Number((channels[3] / 255).toFixed(3))} is ${TRANSLUCENT}` };
  }
  return opaque([channels[0], channels[1], channels[2]]);
}

type Component = { kind: 'number' | 'percent' | 'none'; value: number; text: string };

function readComponent(text: string): Component | null {
  if (/^none$/i.test(text)) return { kind: 'none', value: 0, text };
  if (text.endsWith('%') && CSS_NUMBER.test(text.slice(0, -1))) return { kind: 'percent', value: Number(text.slice(0, -1)), text };
  if (CSS_NUMBER.test(text)) return { kind: 'number', value: Number(text), text };
  return null;
}

function channelValue(component: Component): number {
  if (component.kind === 'percent') return (component.value * 255) / 100;
  return component.value;
}

function alphaValue(component: Component): number {
  const raw = component.kind === 'percent' ? component.value / 100 : component.value;
  return Math.min(1, Math.max(0, raw));
}

const WS1 = `[${CSS_WHITESPACE}]+`;

function classifyRgbFunction(token: string): ColorLiteral {
  const open = token.indexOf('(');
  const body = token.slice(open + 1, -1);
  if (/var\(|calc\(|min\(|max\(|clamp\(|env\(|from[\s]/i.test(body)) {
    return { comparable: false, reason: `${token} uses a reference, math function or relative colour the probe does not resolve` };
  }
  const foreign = describeForeignCharacter(body);
  if (foreign) return { comparable: false, reason: `contains ${foreign}: not an rgb() literal` };
  let parts: string[];
  let alphaText: string | null = null;
  let legacy = false;
  if (body.includes(',')) {
    legacy = true;
    parts = body.split(',').map(trimCssWhitespace);
    if (parts.length === 4) alphaText = parts.pop()!;
    if (parts.length !== 3) return { comparable: false, reason: `${token} does not have three channels` };
  } else {
    const [channelsText, ...rest] = body.split('/');
    if (rest.length > 1) return { comparable: false, reason: `${token} has more than one '/'` };
    if (rest.length === 1) alphaText = trimCssWhitespace(rest[0]);
    parts = trimCssWhitespace(channelsText).split(new RegExp(WS1));
    if (parts.length !== 3) return { comparable: false, reason: `${token} does not have three channels` };
  }
  const channels = parts.map(readComponent);
  if (channels.some((c) => c === null)) return { comparable: false, reason: `${token} has a channel that is not a CSS number, percentage or none` };
  const components = channels as Component[];
  if (legacy) {
    const kinds = new Set(components.map((c) => c.kind));
    if (kinds.has('none') || kinds.size > 1) {
      return { comparable: false, reason: `${token} mixes numbers and percentages (or uses none) in comma syntax, which CSS rejects` };
    }
  }
  if (alphaText !== null) {
    const alpha = readComponent(alphaText);
    if (alpha === null || (legacy && alpha.kind === 'none')) {
      return { comparable: false, reason: `${token} has an alpha that is not a CSS number or percentage` };
    }
    const a = alpha.kind === 'none' ? 0 : alphaValue(alpha);
    if (a < 1) return { comparable: false, reason: `alpha ${alpha.text} is ${TRANSLUCENT}` };
  }
  return opaque(components.map((c) => serializeChannel(channelValue(c))) as [number, number, number]);
}

/** Classifies one `colors` literal. */
export function classifyColorLiteral(literal: unknown): ColorLiteral {
  if (typeof literal === 'number') {
    return { comparable: false, reason: 'a colour literal must be a string (opaque hex or rgb()), not a number' };
  }
  if (typeof literal !== 'string') {
    return { comparable: false, reason: `a colour literal must be a string (opaque hex or rgb()), not ${describeJsonType(literal)}` };
  }
  const token = trimCssWhitespace(literal);
  if (token === '') return { comparable: false, reason: 'empty literal: not a colour' };
  if (token.startsWith('#')) return classifyHex(token);
  const fn = new RegExp(`^(rgba?)\\((.*)\\)$`, 'is').exec(token);
  if (fn) return classifyRgbFunction(token);
  if (/^var\(/i.test(token)) return { comparable: false, reason: `token reference ${token} is not resolved by the probe; declare the hex or rgb() value` };
  if (/^(?:transparent|currentcolor)$/i.test(token)) return { comparable: false, reason: `${token} is not an opaque colour literal` };
  if (/^[a-z-]+\(/i.test(token)) {
    return { comparable: false, reason: `${token.slice(0, token.indexOf('('))}() colours are not compared; only opaque hex and rgb() literals are` };
  }
  if (/^[a-z]+$/i.test(token)) return { comparable: false, reason: `named colour '${token}' is not compared; only opaque hex and rgb() literals are` };
  const foreign = describeForeignCharacter(token);
  return { comparable: false, reason: `${foreign ? `contains ${foreign}: ` : ''}not an opaque hex or rgb() literal` };
}

export type LiteralReading =
  { comparable: true; px: number; key: string } | { comparable: true; rgb: [number, number, number]; key: string } | { comparable: false; reason: string };

/** Reads a literal on any axis; `key` is how the comparator matches rendered values. */
export function classifyLiteral(axis: DesignAxis, literal: unknown): LiteralReading {
  if (axis === 'colors') {
    const color = classifyColorLiteral(literal);
    return color.comparable ? { comparable: true, rgb: color.rgb, key: color.serialized } : color;
  }
  const px = classifyPxLiteral(literal, axis);
  return px.comparable ? { comparable: true, px: px.px, key: pxKey(px.px) } : px;
}

/**
 * Two px values are the same when they agree at the precision Chromium
 * serializes computed lengths (6 significant digits, as in "13.3333px"): the
 * rendered side only exists in that form.
 */
export function pxKey(px: number): string {
  return String(Number(px.toPrecision(6)));
}
