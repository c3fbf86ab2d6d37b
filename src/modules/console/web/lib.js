/**
 * The libraries every console module uses, imported once here: Preact renders, htm gives it tagged-template
 * markup without a build step (`html\`<p>${text}</p>\``), and the hooks hold component state.
 */
import htm from 'htm';
import { h, render } from 'preact';

export { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
export { render };
export const html = htm.bind(h);
