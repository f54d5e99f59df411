/**
 * The story index page of a stories run (`<run root>/stories/index.html`):
 * the stories grouped by component (title), each with a thumbnail of its
 * screenshot, its token findings, a link to its aria snapshot, a failed
 * capture's message, and what changed since the baseline. One static file
 * that links the run's own evidence by relative paths, so it opens offline
 * from the run folder. Only renders: the command gathers the rows.
 */

/** One capture of a story, as the page shows it. */
export interface StoryCaptureRow {
  id: string;
  title: string;
  name: string;
  variant: string;
  type: string;
  /** How the type's artifact is shown (its spec's report view): a thumbnail, an aria tree, a link. */
  view?: 'image' | 'a11y' | 'trace';
  result: string;
  error?: string;
  /** The artifact, relative to the page's folder (`../evidence/stories/…`); absent when nothing was written. */
  href?: string;
  /** An aria snapshot's tree text (Playwright's YAML), shown folded. */
  ariaTree?: string;
  /** A screenshot's token findings (its probe sidecar's renderTokens.findings). */
  findings?: Array<{ axis: string; rule: string; value: string; count: number }>;
  /** What the comparison with the baseline says of this capture. */
  change?: { status: string; summary: string[] };
}

export interface StoryIndexPage {
  runRoot: string;
  generatedAt: Date;
  rows: StoryCaptureRow[];
  /** The comparison's page, relative to this one (`../compare/index.html`). */
  comparePage?: string;
  /** Stories of the baseline this run no longer has: `title`, `name [id, variant]`. */
  gone?: Array<{ title: string; label: string }>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const escapeHref = (href: string) => escapeHtml(href.split('/').map(encodeURIComponent).join('/'));

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1a1a1a; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #d0d0d0; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.captures { display: flex; flex-wrap: wrap; gap: 12px; }
.capture { border: 1px solid #d0d0d0; border-radius: 6px; padding: 8px; width: 260px; }
.capture img { max-width: 100%; max-height: 200px; display: block; border: 1px solid #eee; }
.failed { border-color: #c62828; } .failed .why { color: #c62828; }
.changed { outline: 2px solid #e65100; }
.meta { color: #5c5c5c; font-size: 12px; }
pre { font-size: 11px; white-space: pre-wrap; margin: 4px 0; }
ul { margin: 4px 0; padding-left: 18px; } li { font-size: 12px; }
.status { font-weight: 600; }
`;

function captureCard(row: StoryCaptureRow): string {
  const classes = ['capture', row.result === 'failed' ? 'failed' : '', row.change && row.change.status !== 'unchanged' ? 'changed' : '']
    .filter(Boolean)
    .join(' ');
  const parts = [`<div class="meta">${escapeHtml(row.variant)} · ${escapeHtml(row.type)}</div>`];
  if (row.result === 'failed') parts.push(`<div class="why">failed: ${escapeHtml(row.error ?? '')}</div>`);
  else if (row.href && row.view === 'image')
    parts.push(`<a href="${escapeHref(row.href)}"><img loading="lazy" src="${escapeHref(row.href)}" alt="${escapeHtml(`${row.title} / ${row.name}`)}"></a>`);
  else if (row.href) parts.push(`<a href="${escapeHref(row.href)}">${row.view === 'a11y' ? 'aria snapshot' : escapeHtml(row.type)}</a>`);
  if (row.ariaTree !== undefined) parts.push(`<details><summary>aria tree</summary><pre>${escapeHtml(row.ariaTree)}</pre></details>`);
  if (row.findings) {
    parts.push(
      row.findings.length
        ? `<div>token findings:</div><ul>${row.findings.map((f) => `<li>${escapeHtml(`${f.axis}: ${f.rule} ${f.value} (${f.count}×)`)}</li>`).join('')}</ul>`
        : '<div class="meta">no token findings</div>',
    );
  }
  if (row.change) {
    parts.push(`<div class="status">since the baseline: ${escapeHtml(row.change.status)}</div>`);
    if (row.change.summary.length) parts.push(`<ul>${row.change.summary.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul>`);
  }
  return `<div class="${classes}">${parts.join('')}</div>`;
}

export function renderStoryIndexPage(page: StoryIndexPage): string {
  const byTitle = new Map<string, Map<string, StoryCaptureRow[]>>();
  for (const row of page.rows) {
    const stories = byTitle.get(row.title) ?? new Map<string, StoryCaptureRow[]>();
    byTitle.set(row.title, stories);
    stories.set(row.id, [...(stories.get(row.id) ?? []), row]);
  }
  const failed = page.rows.filter((r) => r.result === 'failed').length;
  const changed = page.rows.filter((r) => r.change && r.change.status !== 'unchanged').length;
  const sections = [...byTitle.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([title, stories]) => {
      const gone = (page.gone ?? []).filter((g) => g.title === title);
      return `<section><h2>${escapeHtml(title)}</h2>${[...stories.values()]
        .map(
          (rows) =>
            `<h3>${escapeHtml(rows[0].name)} <span class="meta">${escapeHtml(rows[0].id)}</span></h3><div class="captures">${rows.map(captureCard).join('')}</div>`,
        )
        .join('')}${gone.length ? `<h3>gone since the baseline</h3><ul>${gone.map((g) => `<li>${escapeHtml(g.label)}</li>`).join('')}</ul>` : ''}</section>`;
    });
  const goneElsewhere = (page.gone ?? []).filter((g) => !byTitle.has(g.title));
  if (goneElsewhere.length)
    sections.push(
      `<section><h2>Components gone since the baseline</h2><ul>${goneElsewhere.map((g) => `<li>${escapeHtml(`${g.title}: ${g.label}`)}</li>`).join('')}</ul></section>`,
    );
  const summary = `${byTitle.size} components, ${new Set(page.rows.map((r) => r.id)).size} stories, ${page.rows.length} captures, ${failed} failed${page.comparePage ? `, ${changed} changed since the baseline (<a href="${escapeHref(page.comparePage)}">comparison</a>)` : ''}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stories — ${escapeHtml(page.runRoot)}</title><style>${STYLE}</style></head>
<body><h1>Stories</h1><p class="meta">${escapeHtml(page.runRoot)} · ${escapeHtml(page.generatedAt.toISOString())}</p><p>${summary}</p>
${sections.join('\n')}
</body></html>
`;
}
