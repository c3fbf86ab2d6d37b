import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertTranslates } from '../../test/catalogs.ts';
import { ruleTitle } from './alert-terms.ts';
import { ALERT_WORDS, parseAlertWords, renderAlertReason, renderAlertWord } from './alert-words.ts';
import { BUILT_IN_RULE_NAMES } from './built-in-rules.ts';
import { LANGUAGES } from './display-units.ts';

test('every language has every alert word, with the same placeholders', () => {
  for (const language of LANGUAGES) assertTranslates(language, ALERT_WORDS.en, ALERT_WORDS[language]);
});

test('durations, plurals and terms in the language; an unknown key or term falls back', () => {
  const quiet = {
    key: 'quiet.reason',
    params: {
      device: 'Gate',
      silent_ms: 3 * 86_400_000,
      usual_ms: 600_000,
      last: '2026-01-01T00:00:00.000Z',
    },
  };
  assert.equal(
    renderAlertWord('es', quiet),
    'Gate no ha enviado ningún reporte en 3 días (suele hacerlo cada 10 min); último reporte: 2026-01-01T00:00:00.000Z',
  );
  assert.match(renderAlertWord('en', quiet) ?? '', /no report for 3 days \(usually every 10 min\)/);
  assert.equal(renderAlertWord('es', { key: 'no.such.key', params: {} }), null);
  assert.equal(
    renderAlertWord('es', {
      key: 'event.title',
      params: { alarm: 'Odd', subject: 'X' },
      terms: { alarm: 'nope' },
    }),
    'Odd: X',
  );
  assert.equal(parseAlertWords('not json'), null);
  assert.equal(parseAlertWords('{"title":{"key":"a"}}'), null);
});

test('a resolution note is written after the reason in the language; without it, the reason alone', () => {
  const words = {
    title: { key: 'quiet.title', params: { device: 'Gate' } },
    reason: {
      key: 'quiet.reason.unknown',
      params: { device: 'Gate', silent_ms: 3 * 86_400_000, last: '2026-01-01T00:00:00.000Z' },
    },
  };
  const note = { key: 'resolved.reported_again', params: { device: 'Gate', at: '2026-01-04T08:00:00.000Z' } };
  assert.equal(renderAlertReason('es', words), renderAlertWord('es', words.reason));
  assert.equal(
    renderAlertReason('es', { ...words, note }),
    'Gate no ha enviado ningún reporte en 3 días (intervalo habitual desconocido); último reporte: 2026-01-01T00:00:00.000Z — resuelta: Gate volvió a reportar el 2026-01-04T08:00:00.000Z',
  );
  assert.equal(
    renderAlertReason('en', { ...words, note }),
    'Gate has sent no report for 3 days (usual interval unknown); last report 2026-01-01T00:00:00.000Z — resolved: Gate reported again 2026-01-04T08:00:00.000Z',
  );
  // A note this language does not know: the caller shows the English reason, which carries it.
  assert.equal(renderAlertReason('es', { ...words, note: { key: 'resolved.newer', params: {} } }), null);
});

test('an animal subject as a part: its name and tag in the language; an older alert’s English name kept', () => {
  const title = (parts?: Record<string, unknown>) =>
    ({
      key: 'reading.title.for',
      params: { rule: 'Raised temperature', subject: 'Bella (tag 126)' },
      terms: { rule: 'rule.animal.fever.title' },
      ...(parts ? { parts } : {}),
    }) as never;
  const bella = { subject: { key: 'animal.named', params: { name: 'Bella', tag: '126' } } };
  assert.equal(renderAlertWord('es', title(bella)), 'Temperatura elevada: Bella (crotal 126)');
  assert.equal(renderAlertWord('en', title(bella)), 'Raised temperature for Bella (tag 126)');
  assert.equal(
    renderAlertWord('es', title({ subject: { key: 'animal.tag', params: { tag: '126' } } })),
    'Temperatura elevada: crotal 126',
  );
  // Stored before parts existed: the English name, as the alert was written.
  assert.equal(renderAlertWord('es', title()), 'Temperatura elevada: Bella (tag 126)');
  // A part this language cannot write (a newer key, not a word, parts of its own): the English name.
  for (const odd of [
    { key: 'animal.newer', params: {} },
    'Bella',
    { key: 'animal.named', params: { name: 'Bella', tag: '126' }, parts: { name: { key: 'x', params: {} } } },
  ]) {
    assert.equal(renderAlertWord('es', title({ subject: odd })), 'Temperatura elevada: Bella (tag 126)');
  }
  // As stored (alerts.words JSON text) and read back.
  const stored = parseAlertWords(JSON.stringify({ title: title(bella), reason: title(bella) }));
  assert.ok(stored);
  assert.equal(renderAlertReason('es', stored), 'Temperatura elevada: Bella (crotal 126)');
});

test('every built-in rule and device alarm an alert names has a title in both languages; a farm’s own rule none', () => {
  assert.equal(ruleTitle('en', 'device.quiet'), 'Device quiet');
  assert.equal(ruleTitle('es', 'group.intake_drop'), 'Consumo en descenso');
  assert.equal(ruleTitle('es', 'door.jammed'), 'Trampilla atascada', 'a device alarm, by its alarm’s title');
  assert.equal(ruleTitle('en', 'my_barn_rule'), null);
  for (const rule of BUILT_IN_RULE_NAMES) {
    assert.ok(ruleTitle('en', rule) && ruleTitle('es', rule), rule);
  }
});
