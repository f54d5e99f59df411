/** Aria tree folding by nesting level and search (matches are marked and their ancestors opened). */

function detailsOf(tree: HTMLElement): HTMLDetailsElement[] {
  return Array.from(tree.querySelectorAll<HTMLDetailsElement>('details'));
}

/** Shows nodes down to `level` (1 = top level only); `all` opens everything. */
export function showLevels(tree: HTMLElement, level: string): void {
  for (const details of detailsOf(tree)) {
    const depth = Number((details.parentElement as HTMLElement).dataset.depth);
    details.open = level === 'all' || depth + 1 < Number(level);
  }
}

export function searchTree(tree: HTMLElement, query: string): number {
  const needle = query.trim().toLowerCase();
  let matches = 0;
  for (const li of Array.from(tree.querySelectorAll<HTMLElement>('li'))) {
    const node = li.querySelector(':scope > .node, :scope > details > summary > .node');
    const hit = needle !== '' && !!node && (node.textContent || '').toLowerCase().includes(needle);
    li.classList.toggle('match', hit);
    if (!hit) continue;
    matches++;
    for (let up = li.parentElement; up && up !== tree; up = up.parentElement) {
      if (up instanceof HTMLDetailsElement) up.open = true;
    }
  }
  return matches;
}

export function setUpTrees(doc: Document): void {
  for (const input of Array.from(doc.querySelectorAll<HTMLInputElement>('input[data-tree-search]'))) {
    const tree = doc.getElementById(input.dataset.treeSearch || '');
    const status = doc.querySelector<HTMLElement>(`[data-tree-count="${input.dataset.treeSearch}"]`);
    if (!tree) continue;
    input.addEventListener('input', () => {
      const matches = searchTree(tree, input.value);
      if (status) status.textContent = input.value.trim() ? `${matches} match${matches === 1 ? '' : 'es'}` : '';
    });
  }
  for (const button of Array.from(doc.querySelectorAll<HTMLButtonElement>('button[data-tree-level]'))) {
    const tree = doc.getElementById(button.dataset.tree || '');
    if (!tree) continue;
    button.addEventListener('click', () => showLevels(tree, button.dataset.treeLevel || 'all'));
  }
}
