/**
 * The comparison's static page, `index.html`, built like the run report
 * (src/report/render.ts): the report's style sheet and script inlined, the
 * same Content-Security-Policy, images by relative path, so it opens offline
 * in any browser. A summary (criteria unchanged, changed, new, gone), then
 * one section per pair with the views of its kind: the diff image, the two
 * screenshots under a slider and the tiles of each changed region with the
 * elements and styles that explain it; the aria snapshot's structural
 * changes; the trace's changed actions.
 */
import * as path from 'path';
import { html, plural, type Html } from '../report/html';
import { reportDocument } from '../report/render';
import type { CompareItem, CompareResult } from './schema';

export const COMPARE_GENERATOR = 'design-playbook-evidence compare';

/** A file's address relative to the page, for an <img> (works from file://). */
function href(out: string, file: string | null): string | null {
  if (!file) return null;
  const rel = path.isAbsolute(file) ? path.relative(out, file) : file;
  return rel.split(path.sep).map(encodeURIComponent).join('/');
}

function sideLabel(ref: CompareItem['before']): string {
  return ref.artifact ?? ref.path ?? '—';
}

function statusChip(status: string): Html {
  return html`<span class="status-${status}">${status}</span>`;
}

function screenshotViews(item: CompareItem, out: string): Html {
  const before = href(out, item.before.path);
  const after = href(out, item.after.path);
  const pixels = item.pixels;
  const regions = (item.regions ?? []) as Array<{
    changes?: Array<{ summary: string }>;
    before?: Array<{ selector: string; name?: string }>;
    after?: Array<{ selector: string; name?: string }>;
  }>;
  return html` ${
    pixels
      ? html`<p class="quiet">
          ${pixels.a.width ?? '?'}×${pixels.a.height ?? '?'} → ${pixels.b.width ?? '?'}×${pixels.b.height ?? '?'} px ·
          ${pixels.identicalBytes ? 'byte-identical' : html`${pixels.changedPixels} px changed, ${pixels.antiAliasedPixels} anti-aliased`} · threshold
          ${pixels.threshold}
        </p>`
      : ''
  }
  ${
    item.images?.diff
      ? html`<h4>Changes over the dimmed before image</h4>
          <img class="diff" alt="Changed pixels marked over the before screenshot" src="${item.images.diff}" />`
      : ''
  }
  ${
    before && after && item.status === 'changed'
      ? html`<h4>Before and after</h4>
          <div class="slider">
            <input type="range" min="0" max="100" value="50" aria-label="Where the after image starts" />
            <img class="slider-before" alt="Before" src="${before}" />
            <img class="slider-after" alt="After" src="${after}" />
          </div>`
      : ''
  }
  ${
    item.images?.tiles.length
      ? html`<h4>Changed regions</h4>
          <div class="tiles">
            ${item.images.tiles.map((tile) => {
              const region = regions[tile.region];
              return html`<figure class="tile">
                <img alt="Region ${tile.region + 1} before" src="${tile.before}" /><img alt="Region ${tile.region + 1} after" src="${tile.after}" />
                <figcaption>
                  Region ${tile.region + 1}
                  ${
                    region?.changes?.length
                      ? html`<ul class="changes">
                          ${region.changes.map((c) => html`<li><code>${c.summary}</code></li>`)}
                        </ul>`
                      : ''
                  }
                  ${
                    !region?.changes?.length && region?.after?.length
                      ? html`<p class="quiet">Under it: ${region.after.map((e, i) => html`${i ? ', ' : ''}<code>${e.selector}</code>`)}</p>`
                      : ''
                  }
                </figcaption>
              </figure>`;
            })}
          </div>`
      : ''
  }`;
}

function itemSection(item: CompareItem, index: number, out: string): Html {
  const title = item.criterion ? `${item.criterion} · ${item.kind}` : item.kind;
  return html`<section class="criterion" id="pair-${index + 1}" aria-labelledby="pair-${index + 1}-h">
    <h2 id="pair-${index + 1}-h">${title} ${statusChip(item.status)}</h2>
    <p class="quiet"><code>${sideLabel(item.before)}</code> → <code>${sideLabel(item.after)}</code></p>
    ${
      item.summary.length
        ? html`<ul class="changes">
            ${item.summary.map((line) => html`<li><code>${line}</code></li>`)}
          </ul>`
        : html`<p class="quiet">Nothing changed.</p>`
    }
    ${item.pixels ? screenshotViews(item, out) : ''}
    ${
      item.notes.length
        ? html`<ul class="quiet">
            ${item.notes.map((n) => html`<li>${n}</li>`)}
          </ul>`
        : ''
    }
  </section>`;
}

export function renderComparePage(result: CompareResult, out: string, generatedAt: Date): string {
  const s = result.summary;
  const body = html`<a class="skip" href="#main">Skip to the comparison</a>
    <header class="top">
      <h1>Comparison ${statusChip(result.status)}</h1>
      <p class="quiet">
        ${result.mode === 'rounds' ? html`Rounds of <code>${result.before}</code>` : html`<code>${result.before}</code> → <code>${result.after}</code>`} ·
        generated ${generatedAt.toISOString()}
      </p>
      <p class="quiet">Facts, not verdicts: what changed between the two captures, where, and in which element.</p>
    </header>
    <main id="main" tabindex="-1">
      <section id="summary" aria-labelledby="summary-h">
        <h2 id="summary-h">Summary</h2>
        <table>
          <thead>
            <tr>
              <th>compared</th>
              <th>unchanged</th>
              <th>changed</th>
              <th>new</th>
              <th>gone</th>
              <th>not comparable</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>${s.compared}</td>
              <td>${s.unchanged}</td>
              <td>${s.changed}</td>
              <td>${s.new}</td>
              <td>${s.gone}</td>
              <td>${s.notComparable}</td>
            </tr>
          </tbody>
        </table>
        <ul>
          ${result.items.map((item, i) => html`<li><a href="#pair-${i + 1}">${item.criterion ?? item.kind}</a> ${item.criterion ? item.kind : ''} ${statusChip(item.status)}</li>`)}
        </ul>
      </section>
      ${result.items.map((item, i) => itemSection(item, i, out))}
      ${
        result.new.length
          ? html`<section>
              <h2>New (${result.new.length})</h2>
              <ul>
                ${result.new.map((n) => html`<li>${n.criterion} ${n.type}: <code>${n.after.artifact}</code></li>`)}
              </ul>
            </section>`
          : ''
      }
      ${
        result.gone.length
          ? html`<section>
              <h2>Gone (${result.gone.length})</h2>
              <ul>
                ${result.gone.map((g) => html`<li>${g.criterion} ${g.type}: <code>${g.before.artifact}</code></li>`)}
              </ul>
            </section>`
          : ''
      }
      ${
        result.notComparable.length
          ? html`<section>
              <h2>Not comparable (${result.notComparable.length})</h2>
              <ul>
                ${result.notComparable.map((u) => html`<li>${u.criterion} ${u.type}: ${u.reason}</li>`)}
              </ul>
            </section>`
          : ''
      }
    </main>
    <footer><p class="quiet">${COMPARE_GENERATOR} · ${plural(result.items.length, 'pair')}</p></footer>`;
  return reportDocument({ generator: COMPARE_GENERATOR, title: html`Comparison — ${path.basename(result.after)}`, body });
}
