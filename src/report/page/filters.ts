/** Summary filters: type, result, observed ≠ expected, has findings. Hidden items leave their criterion (and its nav link) hidden when none is left. */

function selected(doc: Document, id: string): string {
  const el = doc.getElementById(id) as HTMLSelectElement | null;
  return el ? el.value : '';
}

function checked(doc: Document, id: string): boolean {
  const el = doc.getElementById(id) as HTMLInputElement | null;
  return !!el && el.checked;
}

export function applyFilters(doc: Document): number {
  const type = selected(doc, 'filter-type');
  const result = selected(doc, 'filter-result');
  const differs = checked(doc, 'filter-differs');
  const findings = checked(doc, 'filter-findings');
  const items = Array.from(doc.querySelectorAll<HTMLElement>('article.item'));
  let shown = 0;
  for (const item of items) {
    const show =
      (!type || item.dataset.type === type) &&
      (!result || item.dataset.result === result) &&
      (!differs || item.dataset.differs === 'true') &&
      (!findings || item.dataset.findings === 'true');
    item.hidden = !show;
    if (show) shown++;
  }
  for (const section of Array.from(doc.querySelectorAll<HTMLElement>('section.criterion'))) {
    const any = section.querySelector('article.item:not([hidden])') !== null;
    section.hidden = !any;
    const link = doc.querySelector<HTMLElement>(`nav li[data-criterion="${section.id}"]`);
    if (link) link.hidden = !any;
  }
  const status = doc.getElementById('filter-status');
  const filtered = !!(type || result || differs || findings);
  if (status) {
    status.textContent = filtered
      ? `Showing ${shown} of ${items.length} artifact${items.length === 1 ? '' : 's'}.`
      : `Showing all ${items.length} artifact${items.length === 1 ? '' : 's'}.`;
  }
  return shown;
}

export function setUpFilters(doc: Document): void {
  const form = doc.getElementById('filters') as HTMLFormElement | null;
  if (!form) return;
  // The form filters in place; it never submits anywhere.
  form.addEventListener('submit', (event) => event.preventDefault());
  form.addEventListener('change', () => applyFilters(doc));
  form.addEventListener('input', () => applyFilters(doc));
  form.addEventListener('reset', () => setTimeout(() => applyFilters(doc), 0));
  applyFilters(doc);
}
