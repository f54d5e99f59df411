/**
 * Style sheets as the trace viewer restores them: rule text read through
 * CSSOM (CSS-in-JS inserts rules that textContent never shows) and adopted
 * sheets as `<template __playwright_style_sheet_>` nodes.
 */
import type { EncodedNode } from './encoding';

/** A sheet's rules as text; undefined for a cross-origin sheet, whose rules are not readable. */
export function rulesText(sheet: CSSStyleSheet): string | undefined {
  try {
    return Array.from(sheet.cssRules, (rule) => rule.cssText).join('\n');
  } catch {
    return undefined;
  }
}

/** The document's or a shadow root's adopted sheets, one template each. */
export function adoptedSheetTemplates(root: Document | ShadowRoot): EncodedNode[] {
  const out: EncodedNode[] = [];
  for (const sheet of root.adoptedStyleSheets || []) {
    const text = rulesText(sheet);
    if (text !== undefined) out.push(['template', { __playwright_style_sheet_: text }]);
  }
  return out;
}
