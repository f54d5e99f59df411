#!/usr/bin/env node
/**
 * Aria snapshot fidelity on randomly generated markup: writes N pages of
 * random nesting (widgets, labels and aria-labelledby references, roles,
 * states, declarative shadow roots with slots, aria-owns, generated content,
 * hidden and box-less wrappers, media, noscript) into a temporary folder,
 * then runs bench/aria-fidelity.js on it (our snapshot vs Playwright's, same
 * Chromium). The same seed gives the same pages.
 *
 * Run after `npm run build`:
 *   node bench/aria-fuzz.js [count=100] [first seed=1] [--js] [--diff-dir out/] [--keep]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const args = process.argv.slice(2);
const diffDirIndex = args.indexOf('--diff-dir');
const isDiffDirValue = (i) => diffDirIndex >= 0 && i === diffDirIndex + 1;
const positional = args.filter((a, i) => !a.startsWith('--') && !isDiffDirValue(i));
const COUNT = Number(positional[0] || 100);
const FIRST_SEED = Number(positional[1] || 1);

const STYLE = `.blk{display:block}.ib{display:inline-block}.flex{display:flex}.contents{display:contents}.none{display:none}
.vis{visibility:hidden}.bef::before{content:"[" attr(title) "]"}.aft::after{content:" \\2192";display:block}
.up{text-transform:uppercase}.bef2::before{content:"pre";display:block}.cv{content-visibility:auto}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}`;

function generatePage(firstSeed) {
  let seed = firstSeed;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const words = ['alpha', 'Beta', 'gamma  delta', 'Ünïcode', '日本語', 'x', 'Save', 'search', '', ' spaced ', 'a:b', '#tag', '- dash'];
  let idc = 0;
  const ids = [];
  function attrs() {
    let s = '';
    const r = rnd();
    if (r < 0.12) s += ` aria-label="${pick(words)}"`;
    else if (r < 0.2 && ids.length) s += ` aria-labelledby="${pick(ids)}${rnd() < 0.3 ? ' ' + pick(ids) : ''}"`;
    if (rnd() < 0.15) s += ` title="${pick(words)}"`;
    if (rnd() < 0.12)
      s += ` role="${pick(['button', 'link', 'heading', 'none', 'presentation', 'listitem', 'img', 'group', 'menu', 'textbox', 'combobox', 'listbox', 'option', 'cell', 'row', 'checkbox', 'slider', 'tab', 'generic', 'region', 'treeitem'])}"`;
    if (rnd() < 0.06) s += ' aria-hidden="true"';
    if (rnd() < 0.05) s += ' hidden';
    if (rnd() < 0.15) s += ` class="${pick(['blk', 'ib', 'flex', 'contents', 'none', 'vis', 'bef', 'aft', 'up', 'sr', 'bef2', 'cv'])}"`;
    if (rnd() < 0.1) {
      const id = 'i' + idc++;
      ids.push(id);
      s += ` id="${id}"`;
    }
    if (rnd() < 0.05) s += ' tabindex="0"';
    if (rnd() < 0.05) s += ` aria-valuenow="${Math.floor(rnd() * 100)}"`;
    return s;
  }
  function node(depth) {
    if (depth > 4 || rnd() < 0.25) return pick(words) + (rnd() < 0.3 ? ' ' : '');
    const kids = () => {
      let s = '';
      const n = Math.floor(rnd() * 4);
      for (let i = 0; i < n; i++) s += node(depth + 1);
      return s;
    };
    const t = pick([
      'shadow',
      'owns',
      'lbl',
      'combo',
      'states',
      'div',
      'span',
      'a',
      'button',
      'label',
      'p',
      'h2',
      'li',
      'table',
      'img',
      'svg',
      'input',
      'select',
      'textarea',
      'details',
      'fieldset',
      'figure',
      'b',
      'em',
      'br',
      'section',
      'header',
      'ul',
      'code',
      'audio',
      'noscript',
      'summary',
      'output',
      'progress',
      'meter',
    ]);
    const a = attrs();
    switch (t) {
      case 'a':
        return `<a${rnd() < 0.8 ? ' href="/p' + Math.floor(rnd() * 9) + '"' : ''}${a}>${kids()}</a>`;
      case 'img':
        return `<img src="x.png" width="10" height="10"${rnd() < 0.7 ? ` alt="${pick(words)}"` : ''}${a}>`;
      case 'svg':
        return `<svg width="10" height="10"${a}>${rnd() < 0.6 ? `<title>${pick(words)}</title>` : ''}<rect width="5" height="5"></rect></svg>`;
      case 'input': {
        const ty = pick(['text', 'checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'range', 'number', 'search', 'file', 'email', 'hidden']);
        return `<input type="${ty}"${rnd() < 0.5 ? ` value="${pick(words)}"` : ''}${rnd() < 0.4 ? ` placeholder="${pick(words)}"` : ''}${rnd() < 0.3 ? ' checked' : ''}${a}>`;
      }
      case 'select':
        return `<select${a}><option>${pick(words)}</option><option${rnd() < 0.5 ? ' selected' : ''}>${pick(words)}</option></select>`;
      case 'textarea':
        return `<textarea${a}>${pick(words)}</textarea>`;
      case 'table':
        return `<table${a}><tr><th>${kids()}</th><td>${kids()}</td></tr><tr><td>${kids()}</td><td>${kids()}</td></tr></table>`;
      case 'details':
        return `<details${rnd() < 0.5 ? ' open' : ''}${a}><summary>${kids()}</summary>${kids()}</details>`;
      case 'fieldset':
        return `<fieldset${a}><legend>${kids()}</legend>${kids()}</fieldset>`;
      case 'figure':
        return `<figure${a}>${kids()}<figcaption>${kids()}</figcaption></figure>`;
      case 'label':
        return `<label${a}>${kids()}${rnd() < 0.5 ? '<input type="text" value="v">' : ''}</label>`;
      case 'br':
        return '<br>';
      case 'shadow':
        return `<div${a}><template shadowrootmode="open">${kids()}<slot></slot>${rnd() < 0.5 ? '<slot name="n"></slot>' : ''}${kids()}</template>${kids()}<span slot="n">${pick(words)}</span></div>`;
      case 'owns': {
        const id = 'o' + idc++;
        ids.push(id);
        return `<div role="${pick(['list', 'listbox', 'group', 'button'])}" aria-owns="${id}"${a}>${kids()}</div><div id="${id}" role="${pick(['listitem', 'option', 'none'])}">${kids()}</div>`;
      }
      case 'lbl': {
        const id = 'f' + idc++;
        return `<label for="${id}"${a}>${kids()}</label>${kids()}<input id="${id}" type="${pick(['text', 'checkbox', 'range', 'submit'])}"${rnd() < 0.5 ? ' aria-describedby="x"' : ''}>`;
      }
      case 'combo':
        return `<div role="combobox" aria-expanded="${rnd() < 0.5}"${a}><input type="text" value="${pick(words)}"><ul role="listbox"><li role="option" aria-selected="true">${pick(words)}</li><li role="option">${pick(words)}</li></ul></div>`;
      case 'states':
        return `<div role="${pick(['checkbox', 'switch', 'button', 'treeitem', 'tab', 'row', 'heading', 'menuitemcheckbox'])}" aria-checked="${pick(['true', 'mixed', 'false'])}" aria-pressed="${pick(['true', 'mixed'])}" aria-expanded="${pick(['true', 'false'])}" aria-selected="true" aria-level="${pick(['2', '0', 'x'])}" aria-disabled="${pick(['true', 'false'])}"${a}>${kids()}</div>`;
      case 'ul':
        return `<ul${a}><li>${kids()}</li><li>${kids()}</li></ul>`;
      case 'audio':
        return `<audio controls${a}></audio>`;
      case 'progress':
      case 'meter':
        return `<${t} value="0.5"${a}></${t}>`;
      default:
        return `<${t}${a}>${kids()}</${t}>`;
    }
  }
  let body = '';
  for (let i = 0; i < 12; i++) body += node(0);
  return `<!doctype html><html><head><meta charset="utf-8"><style>${STYLE}</style></head><body>${body}</body></html>`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aria-fuzz-'));
for (let i = 0; i < COUNT; i++) {
  const seedValue = FIRST_SEED + i;
  fs.writeFileSync(path.join(dir, `seed-${seedValue}.html`), generatePage(seedValue));
}
const passOn = args.filter((a, i) => a === '--js' || a === '--diff-dir' || isDiffDirValue(i));
const run = spawnSync(process.execPath, [path.join(__dirname, 'aria-fidelity.js'), dir, ...passOn, ...(args.includes('--js') ? ['--settle', '0'] : [])], {
  stdio: 'inherit',
});
if (args.includes('--keep')) console.log(`pages kept in ${dir}`);
else fs.rmSync(dir, { recursive: true, force: true });
process.exit(run.status ?? 1);
