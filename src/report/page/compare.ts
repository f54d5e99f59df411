/**
 * The comparison page's before/after slider: a range input moves where the
 * after image starts over the before image. Without the script the page shows
 * the two images one above the other, so nothing depends on it.
 */
export function setUpSliders(doc: Document): void {
  for (const slider of Array.from(doc.querySelectorAll<HTMLElement>('.slider'))) {
    const range = slider.querySelector<HTMLInputElement>('input[type=range]');
    const after = slider.querySelector<HTMLElement>('.slider-after');
    if (!range || !after) continue;
    slider.classList.add('live');
    const show = () => after.style.setProperty('--cut', `${range.value}%`);
    range.addEventListener('input', show);
    show();
  }
}
