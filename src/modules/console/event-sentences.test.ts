/**
 * The event log's sentences (web/event-sentences.ts): each known event type, in English and Spanish, in
 * metric and US units, subjects by name (never an id, never JSON), a device's alarms by their alerts' titles,
 * and the fallback for a custom type (its name as logged).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventSentence, type Names } from './web/event-sentences.ts';
import { eventTypeName, KNOWN_EVENT_TYPES } from './web/event-types.ts';
import { setReader } from './web/i18n.ts';

const names: Names = {
  animals: new Map([
    ['ani_1', { tag: 'A12', name: 'Bella' }],
    ['ani_2', { tag: '204', name: null }],
  ]),
  devices: new Map([
    ['dev_scale', 'the scale in the crush'],
    ['dev_house', 'House 2'],
  ]),
  groups: new Map([['grp_1', 'Cow-calf herd']]),
  paddocks: new Map([
    ['pad_n', 'North'],
    ['pad_e', 'East'],
  ]),
};

const animal = { subject_type: 'animal', subject_id: 'ani_1' };
const EVENTS = {
  weight: { type: 'weight', ...animal, data: { kg: 412, method: 'scale', device_id: 'dev_scale' } },
  treatment: { type: 'treatment', ...animal, data: { medicine: 'Ivomec', dose: 5, dose_unit: 'mL' } },
  move: {
    type: 'move',
    subject_type: 'group',
    subject_id: 'grp_1',
    data: { from: { paddock_id: 'pad_n' }, to: { paddock_id: 'pad_e' } },
  },
  birth: { type: 'birth', ...animal, data: { count: 2 } },
  heat: { type: 'heat', ...animal, data: {} },
  service: { type: 'service', ...animal, data: { method: 'ai' } },
  pregnancy_check: { type: 'pregnancy_check', ...animal, data: { result: 'pregnant' } },
  abortion: { type: 'abortion', ...animal, data: {} },
  weaning: { type: 'weaning', ...animal, data: {} },
  sale: { type: 'sale', subject_type: 'animal', subject_id: 'ani_2', data: { buyer: 'Hill Mart' } },
  slaughter: { type: 'slaughter', ...animal, data: {} },
  death: { type: 'death', ...animal, data: { cause: 'bloat' } },
  note: { type: 'note', subject_type: 'paddock', subject_id: 'pad_n', data: { text: 'Clover recovered' } },
  'feed.delivery': {
    type: 'feed.delivery',
    subject_type: 'device',
    subject_id: 'dev_house',
    data: { kg: 340, supplier: 'Hillside Mill' },
  },
  'feed.refilled': {
    type: 'feed.refilled',
    subject_type: 'device',
    subject_id: 'dev_house',
    data: { to_pct: 100 },
  },
  'egg.collection': {
    type: 'egg.collection',
    subject_type: 'group',
    subject_id: 'grp_1',
    data: { eggs: 236 },
  },
  movement: { type: 'movement', data: { direction: 'off', head_count: 3, other_holding: '12/345/6789' } },
  reading: { type: 'reading', ...animal, data: { metric: 'body.temp_c', value: 39.5, unit: '°C' } },
  'alert.escalated': { type: 'alert.escalated', subject_type: 'device', subject_id: 'dev_house', data: {} },
} satisfies Record<(typeof KNOWN_EVENT_TYPES)[number], unknown>;

const EXPECTED = {
  en: {
    weight: 'Weighed Bella (A12): 908 lb, by the scale in the crush',
    treatment: 'Treated Bella (A12) with Ivomec, 5 mL',
    move: 'Moved Cow-calf herd from North to East',
    birth: 'Births for Bella (A12): 2 born',
    heat: 'Heat: Bella (A12)',
    service: 'Service: Bella (A12)',
    pregnancy_check: 'Pregnancy check: Bella (A12)',
    abortion: 'Abortion: Bella (A12)',
    weaning: 'Weaning: Bella (A12)',
    sale: 'Sold 204 to Hill Mart',
    slaughter: 'Sent Bella (A12) to slaughter',
    death: 'Bella (A12) died: bloat',
    note: 'Note on North: Clover recovered',
    'feed.delivery': 'Feed delivered to House 2: 750 lb from Hillside Mill',
    'feed.refilled': 'Refilled the feeder of House 2 to 100%',
    'egg.collection': 'Collected 236 eggs from Cow-calf herd',
    movement: 'Moved 3 animals off the holding to 12/345/6789',
    reading: 'Reading for Bella (A12): 103.1°F',
    'alert.escalated': 'An alert about House 2 became urgent',
  },
  es: {
    weight: 'Se pesó a Bella (A12): 412 kg, con the scale in the crush',
    treatment: 'Se trató a Bella (A12) con Ivomec, 5 mL',
    move: 'Se trasladó Cow-calf herd de North a East',
    birth: 'Nacimientos de Bella (A12): 2 crías',
    heat: 'Celo: Bella (A12)',
    service: 'Servicio: Bella (A12)',
    pregnancy_check: 'Diagnóstico de gestación: Bella (A12)',
    abortion: 'Aborto: Bella (A12)',
    weaning: 'Destete: Bella (A12)',
    sale: 'Se vendió 204 a Hill Mart',
    slaughter: 'Se envió Bella (A12) al matadero',
    death: 'Murió Bella (A12): bloat',
    note: 'Nota sobre North: Clover recovered',
    'feed.delivery': 'Pienso entregado a House 2: 340 kg de Hillside Mill',
    'feed.refilled': 'Se rellenó el comedero de House 2 hasta 100%',
    'egg.collection': 'Se recogieron 236 huevos de Cow-calf herd',
    movement: 'Salieron 3 animales de la explotación hacia 12/345/6789',
    reading: 'Lectura de Bella (A12): 39,5 °C',
    'alert.escalated': 'Una alerta sobre House 2 pasó a urgente',
  },
} as const;

test('each known event type reads as a sentence: English in US units', async () => {
  await setReader({ language: 'en', units: 'us' });
  for (const type of KNOWN_EVENT_TYPES)
    assert.equal(eventSentence(EVENTS[type], names), EXPECTED.en[type], type);
});

test('each known event type reads as a sentence: Spanish in metric units', async () => {
  await setReader({ language: 'es', units: 'metric' });
  for (const type of KNOWN_EVENT_TYPES)
    assert.equal(eventSentence(EVENTS[type], names), EXPECTED.es[type], type);
});

test('one of a plural, a custom type, a removed subject and an event with no subject: no id, no JSON', async () => {
  await setReader({ language: 'en', units: 'metric' });
  assert.equal(
    eventSentence({ ...EVENTS.birth, data: { count: 1 } }, names),
    'Birth for Bella (A12): 1 born',
  );
  assert.equal(
    eventSentence(
      { type: 'hay.delivery', subject_type: 'paddock', subject_id: 'pad_e', data: { bales: 40 } },
      names,
    ),
    'hay.delivery: East',
  );
  const gone = eventSentence(
    { type: 'weight', subject_type: 'animal', subject_id: 'ani_gone', data: { kg: 3 } },
    names,
  );
  assert.equal(gone, 'Weighed a removed animal: 3 kg');
  assert.equal(eventSentence({ type: 'note', data: { text: 'Rain' } }, names), 'Note on the farm: Rain');
  // A known type without the data its sentence needs falls back plainly.
  assert.equal(eventSentence({ type: 'weight', ...animal, data: {} }, names), 'Weight: Bella (A12)');
  await setReader({ language: 'es', units: 'metric' });
  assert.equal(
    eventSentence({ ...EVENTS.birth, data: { count: 1 } }, names),
    'Nacimiento de Bella (A12): 1 cría',
  );
  for (const type of KNOWN_EVENT_TYPES) {
    assert.doesNotMatch(eventSentence(EVENTS[type], names), /ani_|dev_|grp_|pad_|[{}]/);
  }
  await setReader({ language: 'en', units: 'metric' });
});

test('a device’s events: an alarm by its alert’s title in the reader’s language, any other by its name as sent', async () => {
  const house = { subject_type: 'device', subject_id: 'dev_house' };
  const alarms = ['door.jammed', 'predator.detected', 'safety_edge.stop'];
  const said = {
    en: ['Pop door jammed: House 2', 'Predator detected: House 2', 'Safety edge stopped the house: House 2'],
    es: [
      'Trampilla atascada: House 2',
      'Depredador detectado: House 2',
      'El borde de seguridad detuvo el gallinero: House 2',
    ],
  };
  try {
    for (const language of ['en', 'es'] as const) {
      await setReader({ language, units: 'metric' });
      const sentences = alarms.map((type) => eventSentence({ type, ...house, data: { door: 9 } }, names));
      assert.deepEqual(sentences, said[language]);
      // One the console has no words for: its name as the device sent it, not English made of it.
      const deterred = { type: 'predator.deterred', ...house, data: { species: 'fox' } };
      assert.equal(eventSentence(deterred, names), 'predator.deterred: House 2');
      assert.equal(
        eventTypeName('predator.deterred'),
        language === 'es' ? 'Otro: «predator.deterred»' : 'Other: “predator.deterred”',
      );
    }
  } finally {
    await setReader({ language: 'en', units: 'metric' });
  }
});
