/**
 * Animals: a table that stays fast at thousands of head — the server searches (`q`) and filters, and only
 * one page (50 rows) is ever in the page — and a form to add one with every field. Animals ticked (across
 * pages) are given a treatment or moved together.
 */
import { speciesWord } from '../../../../domain/animal-terms.ts';
import { api } from '../api.ts';
import { SpeciesList, Submit, useForm } from '../form.ts';
import { WithdrawalChips } from '../herd-book.ts';
import { reader, words } from '../i18n.ts';
import { checkedOf, html, inputValue, useEffect, useState } from '../lib.ts';
import { EN, ES } from '../messages/animals.ts';
import { useReader } from '../reader-hook.ts';
import {
  ANIMAL_FIELD_NAMES,
  ANIMAL_STATUSES,
  AnimalFields,
  animalBody,
  choices,
  Pager,
  type Places,
  statusWord,
  usePager,
  usePlaces,
} from '../records.ts';
import { navigate } from '../router.ts';
import type { Farm } from '../store.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const PAGE_SIZE = 50;
const w = words(EN, ES);

/** The filters that are set (a blank filter is left out of the query). */
function nonBlank(filters: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== ''));
}

function AddAnimal({ farm, places, onAdded }: { farm: Farm; places: Places; onAdded(): void }) {
  const [open, setOpen] = useState(false);
  const form = useForm(async (data, el) => {
    const animal = await api('POST', '/v1/farms/{farm}/animals', {
      path: { farm: farm.id },
      body: animalBody(data),
    });
    el.reset();
    onAdded();
    return html`<a href=${`/animals/${animal.id}`}>${w('added', { name: animal.tag ?? animal.name ?? speciesWord(reader.language, animal.species) })}</a>`;
  });
  if (!open) {
    return html`<button type="button" class="button primary" onClick=${() => setOpen(true)}>${w('add')}</button>`;
  }
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="add-animal-title">
    <h2 id="add-animal-title">${w('add')}</h2>
    <${AnimalFields} places=${places} error=${form.error} idPrefix="new" />
    <${Submit} form=${form} label=${w('add_submit')} names=${ANIMAL_FIELD_NAMES} />
    <button type="button" class="button link" onClick=${() => setOpen(false)}>${w('close')}</button>
  </form>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const places = usePlaces(farm.id);
  // Filters start from the URL, so other pages can link to a filtered list (/animals?group_id=…).
  const [filters, setFilters] = useState(() => {
    const params = new URLSearchParams(location.search);
    const get = (name: string) => params.get(name) ?? '';
    return {
      q: get('q'),
      species: get('species'),
      group_id: get('group_id'),
      paddock_id: get('paddock_id'),
      status: get('status'),
      withdrawal: get('withdrawal'),
    };
  });
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const choose = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  const treats = can('animals', 'write');
  const [typed, setTyped] = useState(filters.q);
  const pager = usePager(JSON.stringify(filters));
  const animals = useLoad(
    () =>
      api('GET', '/v1/farms/{farm}/animals', {
        path: { farm: farm.id },
        query: {
          ...nonBlank(filters),
          withdrawal: filters.withdrawal === 'active' ? 'active' : undefined,
          limit: PAGE_SIZE,
          before: pager.before,
        },
      }),
    [farm.id, JSON.stringify(filters), pager.before],
  );
  useFarmStream(farm.id, ['animal.created'], () => animals.reload());

  // Search as the farmer types, once they pause (the server does the matching).
  useEffect(() => {
    const timer = setTimeout(
      () => setFilters((f) => (f.q === typed.trim() ? f : { ...f, q: typed.trim() })),
      250,
    );
    return () => clearTimeout(timer);
  }, [typed]);

  // Links from the brief or alerts (/animals#ani_…) open the animal's own page.
  useEffect(() => {
    if (location.hash.startsWith('#ani_')) navigate(`/animals/${location.hash.slice(1)}`, { replace: true });
  }, []);

  if (!places.data) return html`<${Loading} error=${places.error} retry=${places.reload} />`;
  const { names } = places.data;
  const set = (name: keyof typeof filters) => (e: Event) => setFilters({ ...filters, [name]: inputValue(e) });
  return html`<section>
    <h1>${w('title')}</h1>
    <form class="filters" role="search" onSubmit=${(e: Event) => e.preventDefault()}>
      <div class="field grow"><label for="animal-q">${w('search')}</label>
        <input id="animal-q" type="search" placeholder=${w('search_placeholder')} value=${typed}
          onInput=${(e: Event) => setTyped(inputValue(e))} /></div>
      <div class="field"><label for="animal-species">${w('species')}</label>
        <input id="animal-species" list="species-filter" value=${filters.species} onChange=${set('species')} /></div>
      <div class="field"><label for="animal-group">${w('group')}</label>
        <select id="animal-group" onChange=${set('group_id')}>${choices(places.data.groups, w('any')).map(([v, t]) => html`<option value=${v} selected=${filters.group_id === v}>${t}</option>`)}</select></div>
      <div class="field"><label for="animal-paddock">${w('paddock')}</label>
        <select id="animal-paddock" onChange=${set('paddock_id')}>${choices(places.data.paddocks, w('any')).map(([v, t]) => html`<option value=${v} selected=${filters.paddock_id === v}>${t}</option>`)}</select></div>
      <div class="field"><label for="animal-status">${w('status')}</label>
        <select id="animal-status" onChange=${set('status')}>${[['', w('any')], ...ANIMAL_STATUSES.map((s) => [s, statusWord(s)])].map(([v, t]) => html`<option value=${v} selected=${filters.status === v}>${t}</option>`)}</select></div>
      <div class="field"><label for="animal-withdrawal">${w('withdrawal')}</label>
        <select id="animal-withdrawal" onChange=${set('withdrawal')}>${[
          ['', w('any')],
          ['active', w('under_withdrawal')],
        ].map(
          ([v, t]) => html`<option value=${v} selected=${filters.withdrawal === v}>${t}</option>`,
        )}</select></div>
      <${SpeciesList} id="species-filter" />
    </form>
    ${can('animals', 'write') && html`<${AddAnimal} farm=${farm} places=${places.data} onAdded=${animals.reload} />`}
    ${
      chosen.size > 0 &&
      html`<div class="chosen-bar" role="region" aria-label=${w('chosen_bar')}>
        <span>${w('chosen', { count: chosen.size })}</span>
        <a class="button primary" href=${`/treat?animal_ids=${[...chosen].join(',')}`}>${w('treat')}</a>
        <a class="button secondary" href=${`/movements?animal_ids=${[...chosen].join(',')}`}>${w('move')}</a>
        <button type="button" class="button link" onClick=${() => setChosen(new Set())}>${w('clear')}</button>
      </div>`
    }
    ${
      !animals.data
        ? html`<${Loading} error=${animals.error} retry=${animals.reload} />`
        : html`<div class="table-wrap"><table class="records as-cards">
          <caption class="visually-hidden">${filters.q ? w('caption_matching', { q: filters.q }) : w('caption')}</caption>
          <thead><tr>${treats && html`<th scope="col"><span class="visually-hidden">${w('choose')}</span></th>`}<th scope="col">${w('tag')}</th><th scope="col">${w('name')}</th><th scope="col">${w('species')}</th><th scope="col" class="wide">${w('breed')}</th>
            <th scope="col">${w('places')}</th><th scope="col">${w('status')}</th></tr></thead>
          <tbody>
            ${animals.data.data.map(
              (a) => html`<tr key=${a.id} id=${a.id}>
                ${
                  treats &&
                  html`<td class="choose"><label><input type="checkbox" checked=${chosen.has(a.id)}
                    onChange=${(e: Event) => choose(a.id, checkedOf(e))} />
                    <span class="visually-hidden">${w('choose_one', { name: a.tag ?? a.name ?? a.id })}</span></label></td>`
                }
                <td class="card-title"><a href=${`/animals/${a.id}`}>${a.tag ?? a.eid ?? w('no_tag')}</a></td>
                <td class="card-title">${a.name ?? ''}</td><td>${speciesWord(reader.language, a.species)}</td><td class="wide">${a.breed ?? ''}</td>
                <td class="card-span">${[names.get(a.group_id), names.get(a.paddock_id)].filter(Boolean).join(' · ')}</td>
                <td><span class=${`status ${a.status}`}>${statusWord(a.status)}</span>
                  <${WithdrawalChips} withdrawal=${a.withdrawal} timezone=${farm.timezone} /></td>
              </tr>`,
            )}
          </tbody>
        </table></div>
        ${animals.data.data.length === 0 && html`<p class="muted" role="status">${w('none')}</p>`}
        <${Pager} pager=${pager} page=${animals.data} />`
    }
  </section>`;
}
