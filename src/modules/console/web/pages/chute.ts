/**
 * The chute page (issue 47): weighing at the race on a phone in a wet glove. The next animal is found by
 * its EID (a Bluetooth stick reader types the number and Enter into the scan field, which keeps the focus),
 * by the last digits of its tag, or from a group's list; its card shows the last weight and gain, any
 * withdrawal and what is due (a treatment's dose; a pregnancy check, web/chute-due.ts); the weight is typed
 * or read from a scale indicator (web/scale.ts);
 * Save records it (offline: the field app's queue, sent once with its Idempotency-Key) and goes back to the
 * scan field for the next animal.
 */

import { sexWord, speciesWord } from '../../../../domain/animal-terms.ts';
import { parseTypedNumber } from '../../../../domain/display-units.ts';
import { displayEid, readEid } from '../../../../domain/eid.ts';
import { api, type Problem, type Schema } from '../api.ts';
import { PregnancyCheckDue } from '../chute-due.ts';
import { nameOf, Withdrawal } from '../herd-book-light.ts';
import { entered, qty, reader, shown, unitLabel, words } from '../i18n.ts';
import { html, inputValue, linkStyleSheet, useEffect, useRef, useState } from '../lib.ts';
import { EN, ES } from '../messages/chute.ts';
import { useReader } from '../reader-hook.ts';
import { gainWeight, loadAll, loadGroups } from '../records.ts';
import { connectScale, hasSerial, type Reading } from '../scale.ts';
import { can } from '../store.ts';
import { ago, ErrorText, farmTime, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

// Its own style sheet, linked when the page first loads (as web/herd-book.ts links its own).
linkStyleSheet(new URL('../chute.css', import.meta.url));

type Animal = Schema<'Animal'>;
type Weights = Schema<'AnimalWeights'>;
type Treatment = Schema<'Treatment'>;

const HOUR_MS = 3_600_000;
const w = words(EN, ES);

/** A weight (stored in kg) said in the reader's units and locale: "412 kg", "908 lb". */
function kgText(kg: number, digits = 1): string {
  return qty(kg, 'kg', digits);
}

/** A stored weight as the reader types it (lb for US units), one decimal: the weight field's value. */
function typedWeight(kg: number): string {
  return String(Math.round(shown(kg, 'kg') * 10) / 10);
}
/** A value this long in the weight field is a scan that landed there, not a weight. */
const SCAN_DIGITS = 8;

interface Weighed {
  animal: Animal;
  kg: number;
  queued: boolean;
}

function loadAnimals(farm: string) {
  return loadAll(
    (before) =>
      api('GET', '/v1/farms/{farm}/animals', {
        path: { farm },
        query: { status: 'active', limit: 500, before },
      }),
    5000,
  );
}

/** The animals a scan or typed digits name: the EID in any reader's form, the tag, or its last digits. */
export function findAnimals(animals: readonly Animal[], typed: string): Animal[] {
  const value = typed.trim();
  if (!value) return [];
  const { eid } = readEid(value);
  const byEid = animals.filter((a) => a.eid === eid);
  if (byEid.length > 0) return byEid;
  const lower = value.toLowerCase();
  const byTag = animals.filter((a) => a.tag?.toLowerCase() === lower);
  if (byTag.length > 0) return byTag;
  return animals.filter(
    (a) => a.tag?.toLowerCase().endsWith(lower) || (value.length >= 3 && a.eid?.endsWith(value)),
  );
}

/** The next dose of a course still running (a treatment given more than once). */
function nextDose(treatments: readonly Treatment[], now = Date.now()) {
  let next: { t: Treatment; at: number; dose: number } | null = null;
  for (const t of treatments) {
    if (t.course.doses <= 1) continue;
    for (let i = 1; i < t.course.doses; i += 1) {
      const at = Date.parse(t.at) + i * t.course.every_hours * HOUR_MS;
      // A dose counts as due from half its interval before its time until the next one.
      if (at + (t.course.every_hours * HOUR_MS) / 2 < now) continue;
      if (!next || at < next.at) next = { t, at, dose: i + 1 };
      break;
    }
  }
  return next;
}

function gainText(gain: number | null | undefined): string {
  if (gain === null || gain === undefined) return w('no_gain');
  return w(gain >= 0 ? 'gaining' : 'losing', { weight: gainWeight(Math.abs(gain)) });
}

/**
 * The average daily gain over every weight, when it says more than the last gain: with two weights, or a
 * steady gain, the two are the same number, and the card said it twice.
 */
function adgLine(adg: number | null, lastGain: number | null | undefined) {
  if (adg === null) return null;
  const same = lastGain !== null && lastGain !== undefined && gainWeight(adg) === gainWeight(lastGain);
  return same ? null : html`<br />${w('adg', { weight: gainWeight(adg) })}`;
}

/** What the card shows beyond the animal itself: its weights and treatments (none offline). */
function useAnimalFacts(animal: Animal | null) {
  return useLoad(async () => {
    if (!animal) return null;
    const [weights, treatments] = await Promise.all([
      api('GET', '/v1/animals/{id}/weights', { path: { id: animal.id } }).catch(() => null),
      api('GET', '/v1/farms/{farm}/treatments', {
        path: { farm: animal.farm_id },
        query: { animal_id: animal.id, limit: 20 },
      })
        .then((page) => page.data)
        .catch(() => []),
    ]);
    return { weights: weights as Weights | null, treatments };
  }, [animal?.id]);
}

function Card({ animal, groupName, timezone }: { animal: Animal; groupName: string; timezone: string }) {
  const facts = useAnimalFacts(animal);
  const weights = facts.data?.weights;
  const last = weights?.data[0];
  const dose = nextDose(facts.data?.treatments ?? []);
  return html`<article class="chute-card" aria-labelledby="chute-animal">
    <h2 id="chute-animal">${nameOf(animal)}</h2>
    <p class="chute-who">${[
      speciesWord(reader.language, animal.species),
      animal.sex && sexWord(reader.language, animal.sex),
      groupName,
      animal.eid && w('eid', { eid: displayEid(animal.eid) }),
    ]
      .filter(Boolean)
      .join(' · ')}</p>
    ${
      !facts.data && !facts.error
        ? html`<p class="chute-fact">${w('looking_up')}</p>`
        : !weights
          ? html`<p class="chute-fact">${w('no_signal')}</p>`
          : last
            ? html`<p class="chute-fact"><strong>${w('last_weight', { weight: kgText(last.kg), ago: ago(last.at) })}</strong>
                ${' '}${gainText(last.gain_kg_per_day)}
                ${adgLine(weights.adg_kg_per_day, last.gain_kg_per_day)}</p>`
            : html`<p class="chute-fact">${w('never_weighed')}</p>`
    }
    <${Withdrawal} animal=${animal} timezone=${timezone} />
    <${PregnancyCheckDue} animal=${animal} />
    ${dose && html`<p class="chute-due" role="note"><strong>${w('dose_due', { dose: dose.dose, doses: dose.t.course.doses, medicine: dose.t.medicine, when: farmTime(new Date(dose.at).toISOString(), timezone) })}</strong></p>`}
  </article>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const data = useLoad(() => Promise.all([loadAnimals(farm.id), loadGroups(farm.id)]), [farm.id]);
  const [current, setCurrent] = useState<Animal | null>(null);
  const [choices, setChoices] = useState<Animal[] | null>(null);
  const [notice, setNotice] = useState<{ text: string; queued?: boolean } | null>(null);
  const [kg, setKg] = useState('');
  const [error, setError] = useState<Problem | null>(null);
  const [saving, setSaving] = useState(false);
  const [weighed, setWeighed] = useState<Weighed[]>([]);
  const [groupId, setGroupId] = useState('');
  const [scale, setScale] = useState<{ stop: () => Promise<void>; last: Reading | null } | null>(null);
  const [scaleError, setScaleError] = useState<string | null>(null);
  const scanRef = useRef<HTMLInputElement>(null);
  const kgRef = useRef<HTMLInputElement>(null);
  const [animals = [], groups = []] = data.data ?? [];
  const groupNames = new Map(groups.map((g) => [g.id, g.name]));

  // The scan field has the focus whenever no animal is on the card, so a reader's digits land there.
  useEffect(() => {
    if (!data.data) return;
    (current ? kgRef : scanRef).current?.focus();
  }, [current?.id, Boolean(data.data)]);
  useEffect(() => () => void scale?.stop(), [scale]);

  const choose = (animal: Animal) => {
    setCurrent(animal);
    setChoices(null);
    setNotice(null);
    setError(null);
    setKg(scale?.last?.stable ? typedWeight(scale.last.kg) : '');
  };

  const scan = (typed: string) => {
    const value = typed.trim();
    if (!value) return;
    const found = findAnimals(animals, value);
    if (found.length === 1 && found[0]) choose(found[0]);
    else if (found.length > 1) {
      setChoices(found);
      setNotice({ text: w('several', { count: found.length, value }) });
    } else {
      setCurrent(null);
      setChoices(null);
      setNotice({ text: w('no_match', { value }) });
      scanRef.current?.focus();
    }
  };

  const save = async () => {
    if (!current || saving) return;
    // Typed in the reader's unit (lb for US units); the API takes kg.
    const typed = parseTypedNumber(kg, reader.locale);
    const value = Math.round(entered(typed, 'kg') * 100) / 100;
    if (!kg.trim() || !Number.isFinite(typed) || typed <= 0) {
      setError({ status: 400, message: w('type_weight'), param: 'kg' });
      kgRef.current?.focus();
      return;
    }
    setSaving(true);
    setError(null);
    try {
      const answer = (await api('POST', '/v1/animals/{id}/weights', {
        path: { id: current.id },
        body: { kg: value, at: new Date().toISOString(), source: 'chute' },
      })) as Weights & { queued?: boolean };
      const queued = answer.queued === true;
      setWeighed((before) => [{ animal: current, kg: value, queued }, ...before]);
      setNotice({
        text: queued
          ? w('kept', { weight: kgText(value), name: nameOf(current) })
          : w('saved', { weight: kgText(value), name: nameOf(current) }),
        queued,
      });
      setCurrent(null);
      setKg('');
    } catch (err) {
      setError(problemOf(err));
    } finally {
      setSaving(false);
    }
  };

  const onScanKey = (event: KeyboardEvent) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const input = event.currentTarget as HTMLInputElement;
    scan(input.value);
    input.value = '';
  };

  const onKgKey = (event: KeyboardEvent) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    // A reader scanning the next animal while the focus is here: a scan, not a weight.
    const value = (event.currentTarget as HTMLInputElement).value.trim();
    if (value.replace(/\D/g, '').length >= SCAN_DIGITS || readEid(value).format === 'iso11784') {
      setKg('');
      scan(value);
      return;
    }
    void save();
  };

  const startScale = async () => {
    setScaleError(null);
    try {
      const stop = await connectScale(
        (reading) => {
          setScale((s) => (s ? { ...s, last: reading } : s));
          if (reading.stable && reading.kg > 0) setKg(typedWeight(reading.kg));
        },
        (err) => {
          setScale(null);
          if (err) setScaleError(w('scale_stopped', { message: problemOf(err).message }));
        },
      );
      setScale({ stop, last: null });
    } catch (err) {
      setScaleError(w('no_scale', { message: problemOf(err).message }));
    }
  };

  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  if (!can('animals', 'write')) {
    return html`<section class="chute"><h1>${w('title')}</h1><p>${w('needs_role')}</p></section>`;
  }
  const group = groups.find((g) => g.id === groupId);
  const inGroup = group ? animals.filter((a) => a.group_id === group.id) : [];
  const weighedIds = new Map(weighed.map((w) => [w.animal.id, w]));
  return html`<section class="chute">
    <h1>${w('title')}</h1>
    <div class="field chute-scan">
      <label for="chute-scan">${w('scan')}</label>
      <input id="chute-scan" ref=${scanRef} type="text" inputmode="numeric" autocomplete="off"
        enterkeyhint="search" onKeyDown=${onScanKey} />
    </div>
    ${notice && html`<p class=${notice.queued ? 'chute-notice queued' : 'chute-notice'} role="status">${notice.text}</p>`}
    ${
      choices &&
      html`<ul class="chute-list" aria-label=${w('matching')}>${choices.map(
        (a) =>
          html`<li><button type="button" class="button" onClick=${() => choose(a)}>${nameOf(a)}</button></li>`,
      )}</ul>`
    }
    ${
      current &&
      html`<${Card} key=${current.id} animal=${current} groupName=${groupNames.get(current.group_id ?? '') ?? ''}
          timezone=${farm.timezone} />
        <form class="chute-weigh" onSubmit=${(e: Event) => {
          e.preventDefault();
          void save();
        }}>
          <label for="chute-kg">${w('weight_of', { name: nameOf(current), unit: unitLabel('kg') })}</label>
          <input id="chute-kg" ref=${kgRef} type="text" inputmode="decimal" autocomplete="off" enterkeyhint="done"
            value=${kg} onInput=${(e: Event) => setKg(inputValue(e))} onKeyDown=${onKgKey}
            aria-invalid=${error ? 'true' : undefined} aria-describedby=${error ? 'chute-kg-error' : undefined} />
          <${ErrorText} error=${error} id="chute-kg-error" label=${w('weight_of', { name: nameOf(current), unit: unitLabel('kg') })} />
          ${scale && html`<p class="chute-scale" role="status">${scale.last ? w(scale.last.stable ? 'scale_steady' : 'scale_moving', { weight: kgText(scale.last.kg) }) : w('scale_waiting')}</p>`}
          <div class="chute-actions">
            <button type="submit" class="button primary" disabled=${saving}>${saving ? w('saving') : w('save')}</button>
            <button type="button" class="button secondary" onClick=${() => {
              setCurrent(null);
              setNotice(null);
            }}>${w('skip')}</button>
          </div>
        </form>`
    }
    ${
      hasSerial() &&
      html`<p class="chute-scale-connect">${
        scale
          ? html`<button type="button" class="button secondary" onClick=${() => {
              void scale.stop();
              setScale(null);
            }}>${w('disconnect')}</button>`
          : html`<button type="button" class="button secondary" onClick=${startScale}>${w('connect')}</button>`
      }</p>
      ${scaleError && html`<p class="error" role="alert">${scaleError}</p>`}`
    }
    <div class="field chute-group">
      <label for="chute-group">${w('from_group')}</label>
      <select id="chute-group" value=${groupId} onChange=${(e: Event) => setGroupId(inputValue(e))}>
        <option value="">${w('choose_group')}</option>
        ${groups.map((g) => html`<option value=${g.id}>${g.name}</option>`)}
      </select>
    </div>
    ${
      group &&
      html`<ul class="chute-list" aria-label=${w('in_group', { name: group.name })}>${inGroup.map((a) => {
        const done = weighedIds.get(a.id);
        return html`<li><button type="button" class=${done ? 'button secondary' : 'button'} onClick=${() => choose(a)}>
          ${done ? w('weighed_as', { name: nameOf(a), weight: kgText(done.kg) }) : nameOf(a)}</button></li>`;
      })}</ul>`
    }
    ${
      weighed.length > 0 &&
      html`<section class="chute-done" aria-labelledby="chute-done-title">
        <h2 id="chute-done-title">${w('weighed_here', { count: weighed.length })}</h2>
        <ul>${weighed.map(
          (done) =>
            html`<li>${w(done.queued ? 'weighed_kept' : 'weighed_line', { name: nameOf(done.animal), weight: kgText(done.kg) })}</li>`,
        )}</ul>
      </section>`
    }
  </section>`;
}
