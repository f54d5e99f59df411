/** Screenshot zoom (fit, or a factor of the image's pixel size), finding-box toggles per rule, and sample buttons that show their box. */

function setZoom(frame: HTMLElement, zoom: string): void {
  const shot = frame.querySelector<HTMLElement>('.shot');
  if (!shot) return;
  const natural = Number(shot.dataset.naturalWidth);
  frame.dataset.zoom = zoom;
  shot.style.width = zoom === 'fit' ? `${natural}px` : `${Math.round(natural * Number(zoom))}px`;
}

function showBox(box: HTMLElement, on: boolean): void {
  box.classList.toggle('active', on);
  if (on) box.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

export function setUpScreenshots(doc: Document): void {
  for (const view of Array.from(doc.querySelectorAll<HTMLElement>('section.view'))) {
    const frame = view.querySelector<HTMLElement>('.shot-frame');
    if (!frame) continue;
    const zoomButtons = Array.from(view.querySelectorAll<HTMLButtonElement>('button[data-zoom]'));
    for (const button of zoomButtons) {
      button.addEventListener('click', () => {
        setZoom(frame, button.dataset.zoom || 'fit');
        for (const other of zoomButtons) other.setAttribute('aria-pressed', String(other === button));
      });
    }
    for (const toggle of Array.from(view.querySelectorAll<HTMLInputElement>('input[data-rule-toggle]'))) {
      toggle.addEventListener('change', () => {
        for (const box of Array.from(frame.querySelectorAll<HTMLElement>('.box'))) {
          if (box.dataset.rule === toggle.dataset.ruleToggle) box.hidden = !toggle.checked;
        }
      });
    }
    for (const button of Array.from(view.querySelectorAll<HTMLButtonElement>('button.sample'))) {
      const box = doc.getElementById(button.dataset.box || '');
      if (!box) continue;
      button.setAttribute('aria-pressed', 'false');
      button.addEventListener('click', () => {
        const on = !box.classList.contains('active');
        showBox(box, on);
        button.setAttribute('aria-pressed', String(on));
      });
      button.addEventListener('mouseenter', () => box.classList.add('active'));
      button.addEventListener('mouseleave', () => {
        if (button.getAttribute('aria-pressed') !== 'true') box.classList.remove('active');
      });
    }
  }
}
