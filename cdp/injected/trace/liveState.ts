/**
 * Live state the trace viewer restores from `__playwright_*` attributes,
 * because the DOM's attributes alone do not hold it: form values, checked
 * and selected options, an image's chosen source, open dialogs and
 * popovers, scroll offsets, and the boxes of canvases.
 */

/** What a password field shows for each character (Chromium's). */
export const PASSWORD_BULLET = '\u2022';

export function boundingRectAttribute(el: Element): string {
  const r = el.getBoundingClientRect();
  return JSON.stringify({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
}

/** Adds `el`'s live state to `attrs` (upper: its upper-cased node name). */
export function addLiveState(el: Element, upper: string, attrs: Record<string, string>): void {
  if (upper === 'INPUT') {
    const input = el as HTMLInputElement;
    const type = (input.type || '').toLowerCase();
    // A password's value as the browser shows it: one bullet per character.
    if (type === 'password') attrs.__playwright_value_ = PASSWORD_BULLET.repeat([...input.value].length);
    else if (type !== 'file') attrs.__playwright_value_ = input.value;
    if (type === 'checkbox' || type === 'radio') attrs.__playwright_checked_ = String(input.checked);
  } else if (upper === 'TEXTAREA') {
    attrs.__playwright_value_ = (el as HTMLTextAreaElement).value;
  } else if (upper === 'OPTION') {
    attrs.__playwright_selected_ = String((el as HTMLOptionElement).selected);
  } else if (upper === 'IMG' && (el as HTMLImageElement).currentSrc) {
    attrs.__playwright_current_src__ = (el as HTMLImageElement).currentSrc;
  } else if (upper === 'CANVAS') {
    attrs.__playwright_bounding_rect__ = boundingRectAttribute(el);
  } else if (upper === 'DIALOG' && (el as HTMLDialogElement).open) {
    let modal = false;
    try {
      modal = el.matches(':modal');
    } catch {
      modal = false;
    }
    attrs.__playwright_dialog_open_ = modal ? 'modal' : 'true';
  }
  if (el.scrollTop) attrs.__playwright_scroll_top_ = String(el.scrollTop);
  if (el.scrollLeft) attrs.__playwright_scroll_left_ = String(el.scrollLeft);
  if (el.hasAttribute('popover')) {
    try {
      if (el.matches(':popover-open')) attrs.__playwright_popover_open_ = 'true';
    } catch {
      /* older engines */
    }
  }
}
