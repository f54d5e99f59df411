/**
 * The report's own design tokens: the one place its type scale, palette and
 * radii are chosen. The page's style sheet (page/report.css) uses only the
 * custom properties emitted here, and REPORT_DESIGN declares the same values
 * as a `design` binding, so a capture of the report can hold the report to
 * its own tokens (the dogfood test expects `measured` with zero findings).
 */

/** Text sizes in px: small print, body, section titles, criterion titles, page title. */
export const REPORT_FONT_SIZES = { small: 12, body: 14, h3: 16, h2: 20, h1: 24 } as const;

/** Corner radii in px: controls and chips, cards. */
export const REPORT_RADII = { control: 4, card: 8 } as const;

/**
 * One colour per finding rule, used for the boxes drawn over screenshots and
 * their legend. Strong, distinct hues that stay visible over both light and
 * dark page content, and reach 3:1 on the report's own surfaces in both
 * schemes (the legend swatches sit there); the same in both schemes.
 */
export const RULE_COLORS = {
  'font-size-off-scale': '#d6336c',
  'color-off-palette': '#d9480f',
  'radius-off-scale': '#1c7ed6',
  'concentric-radius': '#308f45',
} as const;

export interface SchemePalette {
  /** Page background. */
  canvas: string;
  /** Cards, controls. */
  surface: string;
  /** Code, tree and table stripes. */
  sunken: string;
  /** Body text. */
  text: string;
  /** Secondary text (labels, metadata). */
  muted: string;
  /** Hairlines and control borders. */
  line: string;
  /** Links, focus, the selected control. */
  accent: string;
  /** Text on the accent colour. */
  onAccent: string;
  /** `captured`. */
  ok: string;
  /** `failed`, missing files, flagged lines. */
  bad: string;
  /** Search matches (background). */
  mark: string;
  /** Text on a search match. */
  onMark: string;
}

export const LIGHT: SchemePalette = {
  canvas: '#f4f5f7',
  surface: '#ffffff',
  sunken: '#eceef2',
  text: '#1b1e24',
  muted: '#4a505c',
  line: '#8a909c',
  accent: '#0b5cad',
  onAccent: '#ffffff',
  ok: '#1b6b37',
  bad: '#b02a20',
  mark: '#ffe27a',
  onMark: '#1b1e24',
};

export const DARK: SchemePalette = {
  canvas: '#111317',
  surface: '#1b1e24',
  sunken: '#252932',
  text: '#e9ebef',
  muted: '#b3b9c4',
  line: '#6b7280',
  accent: '#8cc2ff',
  onAccent: '#111317',
  ok: '#7ad79a',
  bad: '#ff9b8f',
  mark: '#ffe27a',
  onMark: '#1b1e24',
};

function cssName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}

function paletteVars(palette: SchemePalette): string {
  return Object.entries(palette)
    .map(([key, value]) => `--c-${cssName(key)}:${value};`)
    .join('');
}

/** The custom properties page/report.css reads: light by default, dark under prefers-color-scheme. */
export function tokensCss(): string {
  const sizes = Object.entries(REPORT_FONT_SIZES)
    .map(([key, px]) => `--fs-${key}:${px}px;`)
    .join('');
  const radii = Object.entries(REPORT_RADII)
    .map(([key, px]) => `--r-${key}:${px}px;`)
    .join('');
  const rules = Object.entries(RULE_COLORS)
    .map(([rule, value]) => `--rule-${rule}:${value};`)
    .join('');
  return `:root{color-scheme:light dark;${sizes}${radii}${rules}${paletteVars(LIGHT)}}` + `@media (prefers-color-scheme: dark){:root{${paletteVars(DARK)}}}`;
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** The report's tokens as a `design` declaration (both schemes' colours in one palette). */
export const REPORT_DESIGN = {
  fontSizes: unique(Object.values(REPORT_FONT_SIZES)).sort((a, b) => a - b),
  colors: unique([...Object.values(LIGHT), ...Object.values(DARK), ...Object.values(RULE_COLORS)]),
  radii: unique(Object.values(REPORT_RADII)).sort((a, b) => a - b),
};
