import { html } from '../lib.js';

export function Page() {
  return html`<section><h1>Coming soon</h1></section>`;
}
