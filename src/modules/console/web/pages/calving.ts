/**
 * The calving calendar (issue 47): the farm's bred and pregnant females by due date, the overdue first, then
 * week by week (GET /v1/farms/{farm}/due-dates, from the service and the species' gestation).
 */
import { speciesWord } from '../../../../domain/animal-terms.ts';
import { api, type Reply } from '../api.ts';
import { nameOf } from '../herd-book-light.ts';
import { dayOf, reader, words } from '../i18n.ts';
import { html } from '../lib.ts';
import { EN, ES } from '../messages/calving.ts';
import { useReader } from '../reader-hook.ts';
import { Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Due = Reply<'GET', '/v1/farms/{farm}/due-dates'>['data'][number];

const WEEKS = 10;
const DAY_MS = 86_400_000;
const w = words(EN, ES);

/** The Monday of a due date's week, as YYYY-MM-DD. */
function weekOf(date: string): string {
  const d = new Date(`${date}T12:00:00Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
}

export function Page({ farm }: PageProps) {
  useReader();
  const due = useLoad(
    () => api('GET', '/v1/farms/{farm}/due-dates', { path: { farm: farm.id }, query: { days: WEEKS * 7 } }),
    [farm.id],
  );
  if (!due.data) return html`<${Loading} error=${due.error} retry=${due.reload} />`;
  // A calendar day of the farm's, already: shown as that date, moved by no zone.
  const day = (d: string) => dayOf(`${d}T12:00:00Z`, 'UTC');
  const overdue = due.data.data.filter((d) => d.overdue);
  const weeks = new Map<string, Due[]>();
  for (const d of due.data.data.filter((d) => !d.overdue)) {
    const week = weekOf(d.due_date);
    weeks.set(week, [...(weeks.get(week) ?? []), d]);
  }
  const row = (d: Due) =>
    html`<li key=${d.animal_id}><a href=${`/animals/${d.animal_id}`}>${nameOf({ id: d.animal_id, tag: d.tag, name: d.name })}</a>
      ${' '}${w(d.state === 'pregnant' ? 'pregnant' : 'bred', { species: speciesWord(reader.language, d.species), day: day(d.due_date) })}</li>`;
  return html`<section class="calving">
    <h1>${w('title')}</h1>
    <p class="muted">${w('intro', { weeks: WEEKS })}</p>
    ${
      overdue.length > 0 &&
      html`<section aria-labelledby="overdue-title"><h2 id="overdue-title">${w('overdue')}</h2><ul>${overdue.map(row)}</ul></section>`
    }
    ${[...weeks.entries()].map(
      ([week, list]) =>
        html`<section key=${week} aria-labelledby=${`week-${week}`}><h2 id=${`week-${week}`}>${w('week', { day: day(week), count: list.length })}</h2>
          <ul>${list.map(row)}</ul></section>`,
    )}
    ${due.data.data.length === 0 && html`<p>${w('none', { weeks: WEEKS })}</p>`}
  </section>`;
}
