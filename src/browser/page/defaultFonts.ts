/**
 * The generic font families a capture's page is given (Page.setFontFamilies),
 * so `monospace`, `serif`, `sans-serif`… resolve as they do under
 * Playwright's headless Chromium.
 *
 * A desktop Chrome takes these names from its preferences, whose defaults
 * differ by operating system. The headless shell has no preferences, so left
 * alone it falls back to Blink's built-in names: on Linux `monospace` then
 * resolves to Liberation Mono, where the default preference ("Monospace",
 * which fontconfig maps to the system's monospace face, DejaVu Sans Mono on
 * Debian) gives other glyph widths and line heights — `<pre>`, `<code>`,
 * `<kbd>` and textareas change size and whole pages change height.
 * Playwright sets Chrome's per-OS defaults on every page it opens in a
 * headless browser; these are the same values (Chromium's own defaults), by
 * the platform the browser runs on.
 */
import type { Protocol } from 'puppeteer-core';

export type FontPlatform = 'linux' | 'mac' | 'win';

type Families = Protocol.Page.FontFamilies;

/** [standard, fixed, serif, sansSerif, cursive?, fantasy?]: one platform's (or one script's) names. */
type Row = [string | undefined, string | undefined, string | undefined, string | undefined, string?, string?];

function families([standard, fixed, serif, sansSerif, cursive, fantasy]: Row): Families {
  const out: Families = {};
  if (standard) out.standard = standard;
  if (fixed) out.fixed = fixed;
  if (serif) out.serif = serif;
  if (sansSerif) out.sansSerif = sansSerif;
  if (cursive) out.cursive = cursive;
  if (fantasy) out.fantasy = fantasy;
  return out;
}

function table(base: Row, scripts: Record<string, Row> = {}): Protocol.Page.SetFontFamiliesRequest {
  const forScripts = Object.entries(scripts).map(([script, row]) => ({ script, fontFamilies: families(row) }));
  return { fontFamilies: families(base), ...(forScripts.length ? { forScripts } : {}) };
}

/** Chromium's default font preferences per OS (ISO 15924 script codes for the per-script rows). */
export const DEFAULT_FONT_FAMILIES: Record<FontPlatform, Protocol.Page.SetFontFamiliesRequest> = {
  linux: table(['Times New Roman', 'Monospace', 'Times New Roman', 'Arial', 'Comic Sans MS', 'Impact']),
  mac: table(['Times', 'Courier', 'Times', 'Helvetica', 'Apple Chancery', 'Papyrus'], {
    jpan: ['Hiragino Kaku Gothic ProN', 'Osaka-Mono', 'Hiragino Mincho ProN', 'Hiragino Kaku Gothic ProN'],
    hang: ['Apple SD Gothic Neo', undefined, 'AppleMyungjo', 'Apple SD Gothic Neo'],
    hans: [',PingFang SC,STHeiti', undefined, 'Songti SC', ',PingFang SC,STHeiti', 'Kaiti SC'],
    hant: [',PingFang TC,Heiti TC', undefined, 'Songti TC', ',PingFang TC,Heiti TC', 'Kaiti TC'],
  }),
  win: table(['Times New Roman', 'Consolas', 'Times New Roman', 'Arial', 'Comic Sans MS', 'Impact'], {
    cyrl: ['Times New Roman', 'Courier New', 'Times New Roman', 'Arial'],
    arab: [undefined, 'Courier New', undefined, 'Segoe UI'],
    grek: ['Times New Roman', 'Courier New', 'Times New Roman', 'Arial'],
    jpan: [',Meiryo,Yu Gothic', 'MS Gothic', ',Yu Mincho,MS PMincho', ',Meiryo,Yu Gothic'],
    hang: ['Malgun Gothic', 'Gulimche', 'Batang', 'Malgun Gothic', 'Gungsuh'],
    hans: ['Microsoft YaHei', 'NSimsun', 'Simsun', 'Microsoft YaHei', 'KaiTi'],
    hant: ['Microsoft JhengHei', 'MingLiU', 'PMingLiU', 'Microsoft JhengHei', 'DFKai-SB'],
  }),
};

/** The OS a browser runs on, read from its user agent as Playwright does (anything not Windows or macOS is Linux). */
export function fontPlatform(userAgent: string): FontPlatform {
  if (userAgent.includes('Windows')) return 'win';
  if (userAgent.includes('Macintosh')) return 'mac';
  return 'linux';
}
