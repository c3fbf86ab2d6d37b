/**
 * What the chute card shows as due from the breeding records (issue 47): a pregnancy check, when the
 * Animal's `breeding.pregnancy_check_due` is set (the server's rule, the one the brief's "pregnancy checks
 * due" reads: bred 35 to 60 days ago and not checked since). Its own module and catalog so the chute page
 * only places it.
 */
import type { Schema } from './api.ts';
import { dayOf, words } from './i18n.ts';
import { html } from './lib.ts';
import { EN, ES } from './messages/chute-due.ts';
import { useReader } from './reader-hook.ts';

const w = words(EN, ES);

export function PregnancyCheckDue({ animal }: { animal: Schema<'Animal'> }) {
  useReader();
  const due = animal.breeding?.pregnancy_check_due;
  if (!due) return null;
  // A calendar day of the farm's already: shown as that date, moved by no zone.
  const day = dayOf(`${due}T12:00:00Z`, 'UTC');
  return html`<p class="chute-due" role="note"><strong>${w('pregnancy_check_due', { day })}</strong></p>`;
}
