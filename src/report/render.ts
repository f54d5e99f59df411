/**
 * Renders the report model as one HTML page: summary and filters, one
 * section per criterion, then the run's loose ends. The page is complete
 * without its script (everything is in the markup); the script adds the
 * filters, zoom, box toggles, tree folding and search. Style and script are
 * inlined, and a Content-Security-Policy lets the page load nothing but its
 * own images, so it works offline from file://.
 */
import * as crypto from 'crypto';
import * as path from 'path';
import { bytes, html, num, plural, type Html } from './html';
import type { ReportItem, ReportModel } from './model';
import { a11ySection, fileSection, screenshotSection, traceSection } from './renderViews';
import { tokensCss } from './tokens';
import { CAPTURE_TYPES } from '../contract/captureTypes';
import { pageScript, pageStyle } from './generated/page';

export const GENERATOR = 'design-playbook-evidence report';

/** The summary lists the capture types in the tool's order, then any other type a line names. */
const TYPE_ORDER: readonly string[] = CAPTURE_TYPES;

function typeLabel(item: ReportItem): string {
  return item.type || '(no type)';
}

function requestBlock(item: ReportItem): Html {
  const r = item.request;
  if (!r) return html`<p class="quiet">No request snapshot on this line.</p>`;
  const v = r.viewport ?? {};
  const f = r.freeze ?? {};
  const design = r.design as Record<string, unknown[]> | undefined;
  return html`<dl class="pairs">
    <dt>viewport</dt>
    <dd>${v.width ?? '?'} × ${v.height ?? '?'} @${v.devicePixelRatio ?? '?'}x, ${v.colorScheme ?? '?'}</dd>
    <dt>freeze</dt>
    <dd>${Object.entries(f).map(([k, on], i) => html`${i ? ', ' : ''}${k} ${on ? 'on' : 'off'}`)}</dd>
    <dt>design</dt>
    <dd>
      ${design ? Object.entries(design).map(([axis, list], i) => html`${i ? '; ' : ''}${axis} ${Array.isArray(list) ? list.map((l) => JSON.stringify(l)).join(' ') : JSON.stringify(list)}`) : 'unbound'}
    </dd>
    <dt>schemaVersion</dt>
    <dd>${r.schemaVersion ?? '—'}${item.requestSource === 'capture.request' ? ' (from capture.request)' : ''}</dd>
  </dl>`;
}

function actionText(action: unknown): string {
  if (typeof action === 'string') return action;
  return JSON.stringify(action);
}

/** Cards after this many are laid out only near the viewport (content-visibility), so large runs open fast. */
export const EAGER_ITEMS = 24;

function itemArticle(item: ReportItem, index: number): Html {
  const resultClass = item.result === 'captured' ? 'ok' : item.result === 'failed' ? 'bad' : 'other';
  let view: Html | string = '';
  if (item.screenshot) view = screenshotSection(item, item.screenshot);
  else if (item.a11y) view = a11ySection(item, item.a11y);
  else if (item.trace) view = traceSection(item, item.trace);
  else if (item.file) view = fileSection(item);
  else
    view = html`<p class="note">
      ${item.result === 'failed' ? 'No artifact: the capture failed, and a failed capture leaves no file.' : `evidence/${item.artifact} is missing.`}
    </p>`;
  return html`<article
    class="item${index >= EAGER_ITEMS ? ' deferred' : ''}"
    id="${item.id}"
    data-type="${typeLabel(item)}"
    data-result="${item.result}"
    data-differs="${String(item.differs)}"
    data-findings="${String(item.findingCount > 0)}"
    aria-labelledby="${item.id}-h"
  >
    <h3 id="${item.id}-h">
      <span class="artifact">${item.artifact}</span> <span class="chip">${typeLabel(item)}</span>
      <span class="result result-${resultClass}">${item.result || '(no result)'}</span
      >${item.findingCount ? html` <span class="chip">${plural(item.findingCount, 'finding')}</span>` : ''}
    </h3>
    <div class="states" role="group" aria-label="Expected and observed state">
      <div><span class="label">Expected state</span> <span class="value">${item.expected || '—'}</span></div>
      <div><span class="label">observed_state</span> <span class="value">${item.observed || '—'}</span></div>
      ${item.differs ? html`<p class="differs">The observed state differs from the expected state.</p>` : ''}
    </div>
    ${item.error ? html`<p class="error"><span class="label">error</span> ${item.error}</p>` : ''}
    <div class="columns">
      <div>
        <h4 class="small-h">Capture</h4>
        <dl class="pairs">
          <dt>provider</dt>
          <dd>${item.provider || '—'}</dd>
          <dt>url</dt>
          <dd>${item.url ? html`<span class="url">${item.url}</span>` : '—'}</dd>
          <dt>manifest line</dt>
          <dd>
            ${item.line}, ts
            ${item.ts}${item.superseded.length ? html` <span class="quiet">(supersedes line${item.superseded.length > 1 ? 's' : ''} ${item.superseded.join(', ')})</span>` : ''}
          </dd>
          ${
            item.note
              ? html`<dt>note</dt>
                  <dd>${item.note}</dd>`
              : ''
          }
          <dt>actions</dt>
          <dd>
            ${
              item.actions.length
                ? html`<ol class="plain-ol">
                    ${item.actions.map((a) => html`<li><code>${actionText(a)}</code></li>`)}
                  </ol>`
                : 'none'
            }
          </dd>
        </dl>
      </div>
      <div>
        <h4 class="small-h">Request snapshot</h4>
        ${requestBlock(item)}
      </div>
    </div>
    ${view}
  </article>`;
}

function summarySection(model: ReportModel): Html {
  const types = [...new Set(model.items.map(typeLabel))].sort((a, b) => {
    const ia = TYPE_ORDER.indexOf(a);
    const ib = TYPE_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || (a < b ? -1 : 1);
  });
  const results = [...new Set(['captured', 'failed', ...model.items.map((i) => i.result)])];
  const count = (type: string, result: string) => model.items.filter((i) => typeLabel(i) === type && i.result === result).length;
  const findings = model.items.reduce((n, i) => n + i.findingCount, 0);
  const withFindings = model.items.filter((i) => i.findingCount > 0).length;
  const differs = model.items.filter((i) => i.differs).length;
  return html`<section id="summary" aria-labelledby="summary-h">
    <h2 id="summary-h">Summary</h2>
    <ul class="totals">
      <li><strong>${model.criteria.length}</strong> criteria</li>
      <li><strong>${model.items.length}</strong> bound artifacts</li>
      <li><strong>${findings}</strong> findings in ${plural(withFindings, 'screenshot')}</li>
      <li><strong>${differs}</strong> observed ≠ expected</li>
      <li>
        <a href="#missing"><strong>${model.missing.length}</strong> missing artifacts</a>
      </li>
      <li>
        <a href="#unbound"><strong>${model.unbound.length}</strong> unbound files</a>
      </li>
      <li>
        <a href="#flagged"><strong>${model.flagged.length}</strong> flagged lines</a>
      </li>
    </ul>
    <table class="grid counts-table">
      <caption>
        Bound artifacts by type and result
      </caption>
      <thead>
        <tr>
          <th scope="col">Type</th>
          ${results.map((r) => html`<th scope="col">${r}</th>`)}
          <th scope="col">Total</th>
        </tr>
      </thead>
      <tbody>
        ${types.map(
          (t) =>
            html`<tr>
              <th scope="row">${t}</th>
              ${results.map((r) => html`<td>${count(t, r)}</td>`)}
              <td>${model.items.filter((i) => typeLabel(i) === t).length}</td>
            </tr>`,
        )}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">All</th>
          ${results.map((r) => html`<td>${model.items.filter((i) => i.result === r).length}</td>`)}
          <td>${model.items.length}</td>
        </tr>
      </tfoot>
    </table>
    <form class="filters" id="filters" aria-label="Filter the artifacts">
      <label
        >Type
        <select id="filter-type">
          <option value="">All types</option>
          ${types.map((t) => html`<option value="${t}">${t}</option>`)}
        </select></label
      >
      <label
        >Result
        <select id="filter-result">
          <option value="">All results</option>
          ${results.map((r) => html`<option value="${r}">${r}</option>`)}
        </select></label
      >
      <label><input type="checkbox" id="filter-differs" /> Observed ≠ expected</label>
      <label><input type="checkbox" id="filter-findings" /> Has findings</label>
      <button type="reset" id="filter-reset">Show all</button>
    </form>
    <p id="filter-status" role="status">Showing all ${plural(model.items.length, 'artifact')}.</p>
  </section>`;
}

function missingSection(model: ReportModel): Html {
  return html`<section id="missing" aria-labelledby="missing-h">
    <h2 id="missing-h">Missing artifacts <span class="quiet">(${model.missing.length})</span></h2>
    ${
      model.missing.length
        ? html`<table class="grid">
            <caption class="sr-only">
              Lines whose artifact is not under evidence/
            </caption>
            <thead>
              <tr>
                <th scope="col">Criterion</th>
                <th scope="col">Artifact</th>
                <th scope="col">Line</th>
                <th scope="col">Result</th>
                <th scope="col">ts</th>
              </tr>
            </thead>
            <tbody>
              ${model.missing.map(
                (i) =>
                  html`<tr>
                    <td><a href="#${i.id}">${i.criterion}</a></td>
                    <td><code>evidence/${i.artifact}</code></td>
                    <td>${i.line}</td>
                    <td>${i.result}</td>
                    <td>${i.ts}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="quiet">Every binding line's artifact is under evidence/ (lines of failed captures name no file).</p>`
    }
  </section>`;
}

function unboundSection(model: ReportModel): Html {
  return html`<section id="unbound" aria-labelledby="unbound-h">
    <h2 id="unbound-h">Unbound evidence files <span class="quiet">(${model.unbound.length})</span></h2>
    ${
      model.unbound.length
        ? html`<ul class="unbound">
            ${model.unbound.map(
              (u) =>
                html`<li>
                  ${u.src && u.image ? html`<a href="${u.src}" class="thumb"><img src="${u.src}" loading="lazy" decoding="async" width="${u.image.width}" height="${u.image.height}" alt="Unbound image ${u.file.rel}" /></a>` : ''}
                  <div>
                    <code>evidence/${u.file.rel}</code> ·
                    ${bytes(u.file.size)}${u.file.kind === 'link' ? ' · symbolic link (not followed)' : u.file.kind === 'other' ? ' · not a regular file' : ''}${u.image ? ` · ${u.image.width} × ${u.image.height} px` : ''}
                    ${u.sidecar ? html`<br /><span class="quiet">with its probe sidecar ${u.sidecar}</span>` : ''}
                    ${u.namedByFlaggedLines.length ? html`<br /><span class="quiet">named by flagged line${u.namedByFlaggedLines.length > 1 ? 's' : ''} ${u.namedByFlaggedLines.map((l) => html`<a href="#line-${l}">${l}</a>`)} (a flagged line binds nothing)</span>` : ''}
                  </div>
                </li>`,
            )}
          </ul>`
        : html`<p class="quiet">Every file under evidence/ is bound by a manifest line.</p>`
    }
  </section>`;
}

function flaggedSection(model: ReportModel): Html {
  return html`<section id="flagged" aria-labelledby="flagged-h">
    <h2 id="flagged-h">Flagged manifest lines <span class="quiet">(${model.flagged.length})</span></h2>
    ${
      !model.manifestPresent
        ? html`<p class="note">There is no evidence/manifest.jsonl: no line binds any file.</p>`
        : model.flagged.length
          ? html`<ul class="flagged">
              ${model.flagged.map(
                (f) =>
                  html`<li id="line-${f.line}">
                    <p>
                      <strong>${f.line ? `line ${f.line}` : 'the file'}</strong>
                      ${f.facts.map((fact, i) => html`${i ? '; ' : ''}<code>${fact.code}</code>${fact.field ? html` (<code>${fact.field}</code>)` : ''}: ${fact.detail}`)}
                    </p>
                    ${f.text ? html`<pre>${f.text}${f.truncated ? '…' : ''}</pre>` : ''}
                  </li>`,
              )}
            </ul>`
          : html`<p class="quiet">The reader flags no line.</p>`
    }
  </section>`;
}

function scriptHash(script: string): string {
  return crypto.createHash('sha256').update(script, 'utf8').digest('base64');
}

/**
 * An offline page of the report's kind around `body`: the shared tokens,
 * style sheet and script inlined, and a Content-Security-Policy that lets
 * nothing load but local images and runs only that script (by its hash).
 * The run report and the comparison's page are both made by it.
 */
export function reportDocument(page: { generator: string; title: Html; body: Html }): string {
  const csp = `default-src 'none'; img-src 'self' data: file:; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash(pageScript)}'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="${page.generator}">
<title>${page.title.text}</title>
<style>${tokensCss()}${pageStyle}</style>
</head>
<body>
${page.body.text}
<script>${pageScript}</script>
</body>
</html>
`;
}

/**
 * A comparison shown in the report (built by src/compare/, which the report does
 * not load: the caller hands over what to show and where the comparison's page is).
 */
export interface ReportComparison {
  /** The comparison's page, relative to the report's index.html. */
  href: string;
  mode: 'runs' | 'rounds';
  /** The other run (runs), for the heading. */
  against?: string;
  summary: { compared: number; unchanged: number; changed: number; new: number; gone: number; notComparable: number };
  items: Array<{ criterion: string | null; kind: string; status: string; summary: string[] }>;
}

function comparisonSection(c: ReportComparison): Html {
  const s = c.summary;
  return html`<section id="comparison" aria-labelledby="comparison-h">
    <h2 id="comparison-h">${c.mode === 'rounds' ? 'Compared round by round' : html`Compared with <code>${c.against ?? ''}</code>`}</h2>
    <ul class="totals">
      <li><strong>${s.unchanged}</strong> unchanged</li>
      <li><strong>${s.changed}</strong> changed</li>
      <li><strong>${s.new}</strong> new</li>
      <li><strong>${s.gone}</strong> gone</li>
      <li><strong>${s.notComparable}</strong> not comparable</li>
    </ul>
    <ul>
      ${c.items.map(
        (item) =>
          html`<li>
            ${item.criterion ?? ''} ${item.kind}: <strong>${item.status}</strong>
            ${
              item.summary.length
                ? html`<ul class="changes">
                    ${item.summary.slice(0, 5).map((line) => html`<li><code>${line}</code></li>`)}
                  </ul>`
                : ''
            }
          </li>`,
      )}
    </ul>
    <p><a href="${c.href}">Open the comparison</a> (diff images, regions and the elements under them, the before/after slider).</p>
  </section>`;
}

export function renderReport(model: ReportModel, generatedAt: Date, comparison?: ReportComparison): string {
  const runName = path.basename(model.runRoot) || model.runRoot;
  const body = html`<a class="skip" href="#main">Skip to the evidence</a>
    <header class="top">
      <h1>Run report <span class="run">${runName}</span></h1>
      <p class="quiet">
        Run root <code>${model.runRoot}</code> · manifest <code>${model.manifestPath}</code>${model.manifestPresent ? '' : ' (absent)'} · generated
        ${generatedAt.toISOString()}
      </p>
      <p class="quiet">Facts, not verdicts: this report shows what was captured and what the probe measured; it judges nothing.</p>
      ${
        model.stories
          ? html`<p>
              <a href="../stories/index.html">The stories, grouped by component</a> (a thumbnail, the token findings and the aria tree of each story).
            </p>`
          : ''
      }
    </header>
    <nav aria-label="Criteria and sections">
      <h2 class="sr-only">Contents</h2>
      <ul>
        <li><a href="#summary">Summary</a></li>
        ${comparison ? html`<li><a href="#comparison">Comparison</a></li>` : ''}
        ${model.criteria.map((c) => html`<li data-criterion="${c.anchor}"><a href="#${c.anchor}">${c.id}</a></li>`)}
        <li><a href="#missing">Missing (${model.missing.length})</a></li>
        <li><a href="#unbound">Unbound (${model.unbound.length})</a></li>
        <li><a href="#flagged">Flagged (${model.flagged.length})</a></li>
      </ul>
    </nav>
    <main id="main" tabindex="-1">
      ${summarySection(model)} ${comparison ? comparisonSection(comparison) : ''}
      ${model.criteria.map(
        (c) =>
          html`<section class="criterion" id="${c.anchor}" aria-labelledby="${c.anchor}-h">
            <h2 id="${c.anchor}-h">Criterion ${c.id} <span class="quiet">${plural(c.items.length, 'artifact')}</span></h2>
            ${c.items.map((item) => itemArticle(item, model.items.indexOf(item)))}
          </section>`,
      )}
      ${model.criteria.length ? '' : html`<p class="note">No manifest line binds any artifact.</p>`} ${missingSection(model)} ${unboundSection(model)}
      ${flaggedSection(model)}
    </main>
    <footer><p class="quiet">${GENERATOR} · ${num(model.items.length + model.unbound.length)} evidence files</p></footer>`;
  return reportDocument({ generator: GENERATOR, title: html`Run report — ${runName}`, body });
}
