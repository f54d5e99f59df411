/**
 * The per-type views of one artifact: screenshot (probe sidecar in its
 * reading order, finding boxes drawn over the image, type scale), aria
 * snapshot (roles, names, states and text as distinct parts, foldable,
 * searchable), interaction trace (actions with their frames, errors, the
 * command for Playwright's viewer) and any other file.
 */
import type { Finding, Undecidable } from '../probe/face';
import type { AriaLine } from '../../cdp/aria/yaml';
import { bytes, html, num, plural, raw, type Html } from './html';
import type { A11yView, ReportItem, ScreenshotView, TraceView } from './model';
import { DARK, LIGHT, REPORT_FONT_SIZES, RULE_COLORS } from './tokens';

const RULE_LABELS: Record<string, string> = {
  'font-size-off-scale': 'font size off the scale',
  'color-off-palette': 'colour off the palette',
  'radius-off-scale': 'radius off the scale',
  'concentric-radius': 'corners not concentric',
};

function literalText(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null);
}

function undecidableTable(entries: Undecidable[]): Html {
  if (!entries.length) return html`<p class="quiet">Nothing undecidable.</p>`;
  return html`<table class="grid">
    <caption class="sr-only">
      Undecidable comparisons
    </caption>
    <thead>
      <tr>
        <th scope="col">Axis</th>
        <th scope="col">Kind</th>
        <th scope="col">Literal or value</th>
        <th scope="col">Why</th>
      </tr>
    </thead>
    <tbody>
      ${entries.map(
        (u) =>
          html`<tr>
            <td>${u.axis}</td>
            <td><code>${u.kind}</code></td>
            <td>
              ${u.kind === 'literal' ? html`<code>${literalText(u.literal)}</code>${u.index !== undefined ? ` (index ${u.index})` : ''}` : u.value !== undefined ? html`<code>${u.value}</code>${u.count !== undefined ? ` on ${plural(u.count, 'element')}` : ''}` : '—'}
            </td>
            <td>${u.reason}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function cornersText(finding: Finding): string {
  return (finding.corners ?? [])
    .map((c) => `${c.corner}: outer ${num(c.outer.x)} px, inset ${num(c.inset.x)} px → expected ${num(c.expected.x)} px, actual ${num(c.actual.x)} px`)
    .join('; ');
}

function findingsTable(view: ScreenshotView, itemId: string): Html {
  const findings = view.sidecar!.renderTokens.findings;
  if (!findings.length)
    return html`<p class="quiet">No findings listed. Read with the status and the undecidable list above: an empty list alone is not conformance.</p>`;
  return html`<table class="grid findings">
    <caption class="sr-only">
      Findings
    </caption>
    <thead>
      <tr>
        <th scope="col">Rule</th>
        <th scope="col">Value</th>
        <th scope="col">Elements</th>
        <th scope="col">Samples (select one to show its box)</th>
      </tr>
    </thead>
    <tbody>
      ${findings.map((f, index) => {
        const boxes = view.boxes.map((b, at) => ({ b, at })).filter(({ b }) => b.finding === index);
        return html`<tr data-rule="${f.rule}">
          <td><span class="swatch" data-rule="${f.rule}"></span>${f.rule}</td>
          <td>
            <code>${f.value}</code
            >${f.properties?.length ? html`<br /><span class="quiet">${f.properties.join(', ')}</span>` : ''}${f.corners?.length ? html`<br /><span class="quiet">${cornersText(f)}</span>` : ''}
          </td>
          <td>${f.count}</td>
          <td>
            <ul class="plain">
              ${boxes.map(
                ({ b, at }) =>
                  html`<li>
                    <button type="button" class="sample" data-box="${itemId}-box-${at}" aria-describedby="${itemId}-tip-${at}">
                      ${b.part === 'sample' ? '' : `${b.part}: `}<code>${b.selector}</code>
                    </button>
                    <span class="quiet">${num(b.box.width)} × ${num(b.box.height)} at ${num(b.box.x)}, ${num(b.box.y)}</span>
                  </li>`,
              )}
            </ul>
          </td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/** The rendered text sizes as a small specimen. An SVG image: it shows other pages' sizes, not the report's own type. */
export function typeScaleImage(sizes: number[], offScale: Set<number>): Html {
  const shown = sizes.slice(0, 24);
  const gap = 12;
  let x = 0;
  const glyphs = shown.map((size) => {
    const at = x;
    const width = Math.max(size * 1.3, 34);
    x += width + gap;
    return { size, at, width };
  });
  const height = Math.max(...shown, 12) + 22;
  const label = REPORT_FONT_SIZES.small;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.max(x, 1)}" height="${height}" viewBox="0 0 ${Math.max(x, 1)} ${height}">` +
    `<style>text{font-family:system-ui,sans-serif;fill:${LIGHT.text}}.l{fill:${LIGHT.muted}}.o{fill:${RULE_COLORS['font-size-off-scale']}}` +
    `@media (prefers-color-scheme:dark){text{fill:${DARK.text}}.l{fill:${DARK.muted}}}</style>` +
    glyphs
      .map(
        (g) =>
          `<text x="${g.at}" y="${height - 18}" font-size="${g.size}"${offScale.has(g.size) ? ' class="o"' : ''}>Ag</text>` +
          `<text class="l" x="${g.at}" y="${height - 2}" font-size="${label}">${num(g.size)}</text>`,
      )
      .join('') +
    `</svg>`;
  const alt = `Rendered text sizes: ${sizes.map((s) => `${num(s)} px`).join(', ')}${offScale.size ? `; off the declared scale: ${[...offScale].map((s) => `${num(s)} px`).join(', ')}` : ''}`;
  return html`<img
    class="type-scale"
    src="${'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg)}"
    width="${Math.max(x, 1)}"
    height="${height}"
    alt="${alt}"
  />`;
}

function designList(design: Record<string, unknown> | undefined): Html {
  if (!design) return html`<p class="quiet">Unbound: no design declaration, so every declared comparison is named undecidable.</p>`;
  return html`<dl class="pairs">
    ${Object.entries(design).map(
      ([axis, literals]) =>
        html`<dt>${axis}</dt>
          <dd>
            ${Array.isArray(literals) ? literals.map((l, i) => html`${i ? ' ' : ''}<code>${literalText(l)}</code>`) : html`<code>${JSON.stringify(literals)}</code>`}
          </dd>`,
    )}
  </dl>`;
}

export function screenshotSection(item: ReportItem, view: ScreenshotView): Html {
  const sidecar = view.sidecar;
  const face = sidecar?.renderTokens;
  const page = sidecar?.page;
  const rules = [...new Set(view.boxes.map((b) => b.rule))];
  const offScaleSizes = new Set<number>(
    (face?.findings ?? [])
      .filter((f) => f.rule === 'font-size-off-scale')
      .map((f) => parseFloat(f.value))
      .filter((n) => Number.isFinite(n)),
  );
  const altState = item.observed ? `, observed state ${item.observed}` : '';
  return html`<section class="view" aria-labelledby="${item.id}-shot">
    <h4 id="${item.id}-shot">Screenshot</h4>
    <p class="quiet">
      ${view.image.width} × ${view.image.height} px
      ${view.image.format.toUpperCase()}${page ? ` · page ${page.documentSize.width} × ${page.documentSize.height} CSS px, viewport ${page.viewport.width} × ${page.viewport.height}` : ''}
      · devicePixelRatio ${num(view.scale)}${page?.finalUrl ? html` · <span class="url">${page.finalUrl}</span>` : ''}
    </p>
    ${view.geometryNote ? html`<p class="note">${view.geometryNote}</p>` : ''}
    <h4 id="${item.id}-probe">Probe sidecar <span class="quiet">${view.sidecarLeaf}</span></h4>
    ${
      !sidecar
        ? html`<p class="note">${view.sidecarProblem}</p>`
        : html`<dl class="pairs probe-order">
              <dt>1. measurement_status</dt>
              <dd>
                <span class="status status-${face!.measurement_status}">${face!.measurement_status}</span
                >${face!.measurement_error ? html` — ${face!.measurement_error}` : ''}
              </dd>
              <dt>2. undecidable</dt>
              <dd>${face!.undecidable.length}</dd>
              <dt>3. findings</dt>
              <dd>${face!.findings.length}</dd>
            </dl>
            <h5>Undecidable</h5>
            ${undecidableTable(face!.undecidable)}
            <h5>Findings</h5>
            ${findingsTable(view, item.id)}
            <h5>Declared design</h5>
            ${designList(sidecar.design as Record<string, unknown> | undefined)}
            <h5>Rendered text sizes</h5>
            ${face!.distinctFontSizes.length ? typeScaleImage(face!.distinctFontSizes, offScaleSizes) : html`<p class="quiet">None recorded.</p>`}`
    }
    <div class="shot-tools">
      <div class="zoom" role="group" aria-label="Zoom ${item.artifact}">
        <button type="button" data-zoom="fit" aria-pressed="true">Fit</button><button type="button" data-zoom="0.5" aria-pressed="false">50%</button
        ><button type="button" data-zoom="1" aria-pressed="false">100%</button><button type="button" data-zoom="2" aria-pressed="false">200%</button>
      </div>
      ${
        rules.length
          ? html`<fieldset class="legend">
              <legend>Finding boxes</legend>
              ${rules.map(
                (rule) =>
                  html`<label
                    ><input type="checkbox" checked data-rule-toggle="${rule}" /><span class="swatch" data-rule="${rule}"></span>${RULE_LABELS[rule] ?? rule}
                    (${view.boxes.filter((b) => b.rule === rule).length})</label
                  >`,
              )}
            </fieldset>`
          : ''
      }
    </div>
    <div class="shot-frame" data-zoom="fit" tabindex="0" role="region" aria-label="Screenshot ${item.artifact}, scrollable">
      <div class="shot" data-natural-width="${view.image.width}" style="width:${view.image.width}px">
        <img
          src="${view.src}"
          width="${view.image.width}"
          height="${view.image.height}"
          loading="lazy"
          decoding="async"
          alt="Screenshot ${item.artifact}${altState}${view.boxes.length ? `, with ${plural(view.boxes.length, 'finding box', 'finding boxes')} drawn` : ''}"
        />
        ${view.boxes.map(
          (b, at) =>
            html`<div
              class="box part-${b.part}"
              id="${item.id}-box-${at}"
              data-rule="${b.rule}"
              data-finding="${b.finding}"
              data-css-box="${[b.box.x, b.box.y, b.box.width, b.box.height].join(',')}"
              style="left:${b.pct.left.toFixed(4)}%;top:${b.pct.top.toFixed(4)}%;width:${b.pct.width.toFixed(4)}%;height:${b.pct.height.toFixed(4)}%"
            >
              <span class="tip" role="tooltip" id="${item.id}-tip-${at}"
                >${b.rule}${b.part === 'sample' ? '' : ` (${b.part})`}: <code>${b.selector}</code> · <code>${b.value}</code></span
              >
            </div>`,
        )}
      </div>
    </div>
  </section>`;
}

function ariaLineHtml(line: AriaLine): Html {
  let label: Html;
  if (line.kind === 'node') {
    label = html`<span class="role">${line.role}</span
      >${line.name !== null ? html` <span class="name">${JSON.stringify(line.name)}</span>` : ''}${line.states.map((s) => html` <span class="state">${s}</span>`)}${line.value !== null ? html`<span class="punct">:</span> <span class="text">${line.value}</span>` : ''}`;
  } else if (line.kind === 'text') {
    label = html`<span class="role role-text">text</span><span class="punct">:</span> <span class="text">${line.value}</span>`;
  } else if (line.kind === 'prop') {
    label = html`<span class="prop">/${line.role}</span><span class="punct">:</span> <span class="text">${line.value}</span>`;
  } else {
    label = html`<span class="text">${line.source.trim()}</span>`;
  }
  if (!line.children.length) return html`<li data-depth="${line.depth}"><span class="node">${label}</span></li>`;
  return html`<li data-depth="${line.depth}">
    <details open>
      <summary><span class="node">${label}</span></summary>
      <ul>
        ${line.children.map(ariaLineHtml)}
      </ul>
    </details>
  </li>`;
}

function maxDepth(lines: AriaLine[]): number {
  let depth = 0;
  for (const line of lines) depth = Math.max(depth, line.depth + 1, maxDepth(line.children));
  return depth;
}

export function a11ySection(item: ReportItem, view: A11yView): Html {
  const depth = maxDepth(view.tree);
  const levels = Array.from({ length: Math.min(depth, 6) }, (_, i) => i + 1);
  return html`<section class="view aria" aria-labelledby="${item.id}-aria">
    <h4 id="${item.id}-aria">Aria snapshot <span class="quiet">${plural(view.nodeCount, 'line')}, ${plural(depth, 'level')}</span></h4>
    <div class="tree-tools">
      <label class="search">Search the tree <input type="search" data-tree-search="${item.id}-tree" placeholder="role, name or text" /></label>
      <span class="quiet" role="status" data-tree-count="${item.id}-tree"></span>
      <span role="group" aria-label="Show nesting levels" class="levels"
        >Levels: ${levels.map((l) => html`<button type="button" data-tree-level="${l}" data-tree="${item.id}-tree">${l}</button>`)}<button
          type="button"
          data-tree-level="all"
          data-tree="${item.id}-tree"
        >
          All
        </button></span
      >
    </div>
    <ul class="aria-tree" id="${item.id}-tree" aria-label="Aria snapshot of ${item.artifact}">
      ${view.tree.map(ariaLineHtml)}
    </ul>
    <details class="raw">
      <summary>As written</summary>
      <pre>${view.text}</pre>
    </details>
  </section>`;
}

function frameFigure(view: TraceView, frame: { entry: string } | null, label: string, actionTitle: string): Html {
  if (!frame)
    return html`<figure class="frame empty">
      <div class="noframe">no frame painted yet</div>
      <figcaption>${label}</figcaption>
    </figure>`;
  const size = view.summary.frameSizes.get(frame.entry);
  const src = view.frameSrc[frame.entry];
  return html`<figure class="frame">
    <a href="${src}"
      ><img src="${src}" loading="lazy" decoding="async" ${size ? raw(`width="${size.width}" height="${size.height}"`) : ''} alt="${label} ${actionTitle}"
    /></a>
    <figcaption>${label}</figcaption>
  </figure>`;
}

export function traceSection(item: ReportItem, view: TraceView): Html {
  const s = view.summary;
  return html`<section class="view trace" aria-labelledby="${item.id}-trace">
    <h4 id="${item.id}-trace">Interaction trace</h4>
    <ul class="counts">
      <li><strong>${s.actions.length}</strong> actions</li>
      <li><strong>${s.frameCount}</strong> screencast frames</li>
      <li class="${s.consoleErrors.length ? 'has' : ''}"><strong>${s.consoleErrors.length}</strong> console errors</li>
      <li class="${s.failedRequests.length ? 'has' : ''}"><strong>${s.failedRequests.length}</strong> failed requests</li>
      <li class="${s.httpErrors.length ? 'has' : ''}"><strong>${s.httpErrors.length}</strong> HTTP error responses</li>
    </ul>
    <p>Open it in Playwright's trace viewer:</p>
    <div class="command"><code id="${item.id}-cmd">${view.command}</code> <button type="button" data-copy="${item.id}-cmd">Copy command</button></div>
    <ol class="actions">
      ${s.actions.map((a, i) => {
        const title = `${a.title}${a.selector ? ` ${a.selector}` : ''}`;
        return html`<li>
          <p class="act">
            <span class="step">${i + 1}</span>
            <strong>${a.title}</strong>${a.selector ? html` <code>${a.selector}</code>` : ''}${a.detail ? html` <span class="detail">${a.detail}</span>` : ''}
            <span class="quiet">${a.durationMs === null ? 'duration unknown' : `${num(Math.round(a.durationMs))} ms`}</span>
          </p>
          ${a.error ? html`<p class="note">error: ${a.error}</p>` : ''}
          <div class="frames">${frameFigure(view, a.before, 'Before', title)}${frameFigure(view, a.after, 'After', title)}</div>
        </li>`;
      })}
    </ol>
    ${
      s.consoleErrors.length
        ? html`<h5>Console errors</h5>
            <ul class="plain problems">
              ${s.consoleErrors.map((e) => html`<li><code>${e.kind === 'pageError' ? 'uncaught' : 'console.error'}</code> ${e.text}</li>`)}
            </ul>`
        : ''
    }
    ${
      s.failedRequests.length
        ? html`<h5>Failed requests</h5>
            <ul class="plain problems">
              ${s.failedRequests.map((r) => html`<li><code>${r.method}</code> <span class="url">${r.url}</span> — ${r.reason}</li>`)}
            </ul>`
        : ''
    }
    ${
      s.httpErrors.length
        ? html`<h5>HTTP error responses</h5>
            <ul class="plain problems">
              ${s.httpErrors.map((r) => html`<li><code>${r.status}</code> <code>${r.method}</code> <span class="url">${r.url}</span></li>`)}
            </ul>`
        : ''
    }
  </section>`;
}

export function fileSection(item: ReportItem): Html {
  const file = item.file!;
  return html`<section class="view" aria-labelledby="${item.id}-file">
    <h4 id="${item.id}-file">File</h4>
    <p>${file.rel} · ${bytes(file.size)}</p>
    ${item.problem ? html`<p class="note">${item.problem}</p>` : ''}
    ${
      item.text
        ? html`<pre class="filetext">${item.text.text}</pre>
            ${item.text.truncated ? html`<p class="quiet">First ${bytes(item.text.text.length)} shown.</p>` : ''}`
        : ''
    }
  </section>`;
}
