/**
 * The high-contrast option: a person's choice for this browser (kept in localStorage, not on the server:
 * it belongs to the screen read in sunlight, not to the person), applied as `data-contrast="high"` on the
 * document, which styles.css turns into darker text, stronger lines and bolder focus.
 */
const KEY = 'farmstead.contrast';

export function highContrast(): boolean {
  return document.documentElement.dataset.contrast === 'high';
}

/** Applies the kept choice (at start, before anything is drawn). */
export function applyContrast(): void {
  try {
    if (localStorage.getItem(KEY) === 'high') document.documentElement.dataset.contrast = 'high';
  } catch {
    // Storage refused (a private window's settings): the usual colours.
  }
}

export function setHighContrast(on: boolean): void {
  if (on) document.documentElement.dataset.contrast = 'high';
  else delete document.documentElement.dataset.contrast;
  try {
    if (on) localStorage.setItem(KEY, 'high');
    else localStorage.removeItem(KEY);
  } catch {
    // Not kept: it still holds for this page.
  }
}
