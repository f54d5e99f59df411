/** Copy buttons: the clipboard when the page may use it, else the text is selected for the reader to copy. */

function selectText(el: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(el);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

export function setUpCopyButtons(doc: Document): void {
  for (const button of Array.from(doc.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    const source = doc.getElementById(button.dataset.copy || '');
    if (!source) continue;
    const label = button.textContent;
    button.addEventListener('click', () => {
      const text = source.textContent || '';
      const done = (message: string) => {
        button.textContent = message;
        setTimeout(() => (button.textContent = label), 2000);
      };
      const fallback = () => {
        selectText(source);
        done('Selected: press Ctrl+C');
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(() => done('Copied'), fallback);
      else fallback();
    });
  }
}
