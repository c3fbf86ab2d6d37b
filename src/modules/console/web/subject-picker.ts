/**
 * Choosing what a record is about without knowing ids (issue 45): a search-as-you-type combobox (the ARIA
 * 1.2 combobox pattern: an input with role combobox, aria-expanded, aria-controls and aria-activedescendant
 * over a listbox; ↓/↑ move, Enter chooses, Escape closes then clears). Animals are searched on the server by
 * tag, name or EID (`q`); groups, paddocks and devices (houses too) by name from the farm's lists. The form
 * gets the choice as two hidden fields, `<name>_type` and `<name>_id`.
 */
import { api } from './api.ts';
import { animalName, type Names } from './event-sentences.ts';
import { t } from './i18n.ts';
import { html, useEffect, useRef, useState } from './lib.ts';

export interface SubjectChoice {
  type: 'animal' | 'group' | 'paddock' | 'device';
  id: string;
  name: string;
}

const MAX = 8;

function matches(name: string, query: string): boolean {
  return name.toLocaleLowerCase().includes(query.toLocaleLowerCase());
}

/** The named records of the farm's lists that match, groups first, then paddocks, then devices. */
function localMatches(names: Names, query: string): SubjectChoice[] {
  const out: SubjectChoice[] = [];
  for (const [type, map] of [
    ['group', names.groups],
    ['paddock', names.paddocks],
    ['device', names.devices],
  ] as const) {
    for (const [id, name] of map) if (matches(name, query)) out.push({ type, id, name });
  }
  return out;
}

export function SubjectPicker({
  farmId,
  names,
  name = 'subject',
  label,
  value = null,
  onChoose,
  idPrefix = 'picker',
}: {
  farmId: string;
  names: Names;
  name?: string;
  label: string;
  value?: SubjectChoice | null;
  onChoose?: (choice: SubjectChoice | null) => void;
  idPrefix?: string;
}) {
  const [query, setQuery] = useState(value?.name ?? '');
  const [chosen, setChosen] = useState<SubjectChoice | null>(value);
  const [options, setOptions] = useState<SubjectChoice[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const asked = useRef(0);
  const id = `${idPrefix}-${name}`;
  const listId = `${id}-list`;

  useEffect(() => {
    const q = query.trim();
    if (!open || !q || (chosen && chosen.name === query)) {
      setOptions([]);
      return;
    }
    const ask = ++asked.current;
    const local = localMatches(names, q);
    setOptions(local.slice(0, MAX));
    api('GET', '/v1/farms/{farm}/animals', { path: { farm: farmId }, query: { q, limit: MAX } }).then(
      (page) => {
        if (ask !== asked.current) return;
        const animals: SubjectChoice[] = page.data.map((a) => ({
          type: 'animal',
          id: a.id,
          name: animalName(a) ?? a.eid ?? a.id,
        }));
        setOptions([...animals, ...local].slice(0, MAX));
        setActive(-1);
      },
      () => {},
    );
  }, [query, open, farmId]);

  const choose = (choice: SubjectChoice | null) => {
    setChosen(choice);
    setQuery(choice?.name ?? '');
    setOpen(false);
    setActive(-1);
    onChoose?.(choice);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setOpen(true);
      setActive((i) => (options.length === 0 ? -1 : (i + 1) % options.length));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setOpen(true);
      setActive((i) => (options.length === 0 ? -1 : (i <= 0 ? options.length : i) - 1));
    } else if (e.key === 'Enter') {
      if (open && active >= 0 && options[active]) {
        e.preventDefault();
        choose(options[active]);
      }
    } else if (e.key === 'Escape') {
      if (open) {
        e.preventDefault();
        setOpen(false);
        setActive(-1);
      } else if (query) {
        e.preventDefault();
        choose(null);
      }
    }
  };

  const expanded = open && query.trim() !== '' && !(chosen && chosen.name === query);
  const optionId = (i: number) => `${id}-option-${i}`;
  return html`<div class="field picker">
    <label for=${id}>${label}</label>
    <input id=${id} type="text" role="combobox" autocomplete="off" spellcheck=${false}
      aria-autocomplete="list" aria-expanded=${expanded ? 'true' : 'false'} aria-controls=${listId}
      aria-activedescendant=${expanded && active >= 0 ? optionId(active) : undefined}
      aria-describedby=${`${id}-hint`} placeholder=${t('picker.placeholder')} value=${query}
      onInput=${(e: Event) => {
        const next = (e.target as HTMLInputElement).value;
        setQuery(next);
        setOpen(true);
        setActive(-1);
        if (chosen) {
          setChosen(null);
          onChoose?.(null);
        }
      }}
      onKeyDown=${onKeyDown}
      onBlur=${() => setOpen(false)} />
    <span id=${`${id}-hint`} class="visually-hidden">${t('picker.hint')}</span>
    <ul id=${listId} role="listbox" class="picker-options" aria-label=${label} hidden=${!expanded}>
      ${options.map(
        (o, i) => html`<li id=${optionId(i)} role="option" aria-selected=${i === active ? 'true' : 'false'}
          class=${i === active ? 'active' : ''}
          onMouseDown=${(e: Event) => {
            // Keep the focus in the input; the click chooses.
            e.preventDefault();
            choose(o);
          }}>${o.name} <span class="muted">${t(`subject_kind.${o.type}`)}</span></li>`,
      )}
    </ul>
    <span class="visually-hidden" aria-live="polite">${expanded ? t('picker.results', { count: options.length }) : chosen ? t('picker.chosen', { name: chosen.name }) : ''}</span>
    <input type="hidden" name=${`${name}_type`} value=${chosen?.type ?? ''} />
    <input type="hidden" name=${`${name}_id`} value=${chosen?.id ?? ''} />
  </div>`;
}
