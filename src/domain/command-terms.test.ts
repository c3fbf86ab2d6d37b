import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  COMMAND_TERMS,
  commandSentence,
  commandTitle,
  paramTitle,
  paramUnit,
  valueTitle,
} from './command-terms.ts';
import { DEVICE_COMMANDS } from './devices.ts';
import { LANGUAGES } from './display-units.ts';
import { HOUSE_COMMANDS } from './house-commands.ts';

const EN_US = { language: 'en', units: 'us', locale: 'en-US' } as const;
const EN = { language: 'en', units: 'metric', locale: 'en' } as const;
const ES = { language: 'es', units: 'metric', locale: 'es' } as const;

const REGISTRY = [...HOUSE_COMMANDS, ...Object.values(DEVICE_COMMANDS).flat()];

test('every command of the registry has a title, its parameters names and a sentence, in every language', () => {
  const names = [...new Set(REGISTRY.map((c) => c.name))].sort();
  for (const language of LANGUAGES) {
    assert.deepEqual(Object.keys(COMMAND_TERMS[language]).sort(), names, language);
    for (const spec of REGISTRY) {
      assert.notEqual(commandTitle(language, spec.name), spec.name, `${spec.name} in ${language}`);
      for (const param of spec.params) {
        assert.ok(
          COMMAND_TERMS[language][spec.name as 'locate'].params?.[param.name],
          `${spec.name} ${param.name}`,
        );
        for (const choice of param.enum ?? []) {
          assert.ok(
            COMMAND_TERMS[language][spec.name as 'locate'].values?.[param.name]?.[choice],
            `${spec.name} ${choice}`,
          );
        }
      }
      // A sentence for the command with no parameters, or with each required one and nothing else: never
      // its code, never a raw value.
      const params = Object.fromEntries(
        spec.params
          .filter((p) => p.required || spec.atLeastOneOf?.[0] === p.name)
          .map((p) => [
            p.name,
            p.enum?.[0] ??
              (p.type === 'integers'
                ? [1]
                : p.type === 'times'
                  ? ['06:30']
                  : p.type === 'time'
                    ? '06:30'
                    : p.type === 'id'
                      ? 'pad_1'
                      : 5),
          ]),
      );
      const said = commandSentence(spec.name, params, { ...EN, language }, () => 'East');
      assert.doesNotMatch(said, /[{}]|\b[a-z]+\.[a-z_]+\b|_/, `${spec.name} in ${language}: ${said}`);
      assert.doesNotMatch(said, /\(/, `${spec.name} in ${language} says every parameter: ${said}`);
    }
  }
});

test('a number parameter’s unit in its sentence is the registry’s unit for it', () => {
  const numbers = REGISTRY.flatMap((c) => c.params).filter(
    (p) => p.type === 'number' || p.type === 'integer',
  );
  assert.ok(numbers.some((p) => p.unit === '°C'));
  for (const p of numbers) assert.equal(paramUnit(p.name), p.unit ?? '', p.name);
});

test('a command reads as a sentence in the reader’s language and units', () => {
  assert.equal(commandSentence('doors.close', { doors: [1, 2] }, EN), 'Close pop doors 1 and 2');
  assert.equal(commandSentence('doors.close', { doors: [3] }, ES), 'Cerrar la trampilla 3');
  assert.equal(commandSentence('doors.open', { doors: 'all' }, ES), 'Abrir todas las trampillas');
  assert.equal(commandSentence('doors.open', { doors: [1, 2, 4] }, ES), 'Abrir las trampillas 1, 2 y 4');
  assert.equal(
    commandSentence('doors.schedule', { open: 'dawn', close: '19:30' }, ES),
    'Abrir las trampillas al amanecer y cerrarlas a las 19:30',
  );
  assert.equal(
    commandSentence('climate.set_target', { temp_c: 24 }, ES),
    'Fijar la temperatura objetivo en 24 °C',
  );
  assert.equal(
    commandSentence('climate.set_target', { temp_c: 24 }, EN_US),
    'Set the target temperature to 75.2°F',
  );
  assert.equal(commandSentence('feed.dispense', { kg: 20 }, EN_US), 'Dispense 44 lb of feed');
  assert.equal(
    commandSentence('fans.set', { tunnel: 'on', ridge: 'auto' }, ES),
    'Poner los ventiladores de túnel en marcha y los de cumbrera en automático',
  );
  assert.equal(
    commandSentence('heaters.set', { mode: 'off', panels: [2] }, ES),
    'Apagar el panel calefactor 2',
  );
  assert.equal(commandSentence('heaters.set', { mode: 'auto' }, EN), 'Set the heaters to automatic');
  assert.equal(
    commandSentence('heaters.set', { mode: 'on', panels: [1, 3] }, EN),
    'Turn heater panels 1 and 3 on',
  );
  assert.equal(commandSentence('fans.set', { ridge: 'off' }, EN), 'Set the ridge fans: off');
  assert.equal(commandSentence('lights.set', { mode: 'on' }, ES), 'Encender las luces');
  assert.equal(
    commandSentence('spines.set_height', { mode: 'auto' }, EN),
    'Set the spines to follow flock age',
  );
  assert.equal(
    commandSentence('move.to_paddock', { paddock_id: 'pad_1' }, ES, () => 'Este'),
    'Ir a Este',
  );
  assert.equal(commandSentence('move.to_paddock', { paddock_id: 'pad_1' }, EN), 'Move to paddock');
  assert.equal(commandSentence('alarm.sound', { seconds: 30 }, ES), 'Hacer sonar la alarma 30 segundos');
  assert.equal(commandSentence('valve.set', { position: 'closed' }, ES), 'Cerrar la válvula de agua');
  assert.equal(
    commandSentence('feed.schedule', { times: ['06:30', '16:30'] }, EN),
    'Feed at 06:30 and 16:30',
  );
  assert.equal(commandSentence('move.stop', {}, ES), 'Detener la marcha');
});

test('a command the product does not know: its code’s words, its parameters as pairs, never JSON', () => {
  assert.equal(
    commandSentence('pump.set_rate', { flow_lpm: 3.5, mode: 'eco' }, EN),
    'Pump set rate (flow lpm: 3.5, mode: eco)',
  );
  assert.equal(commandSentence('reboot', null, ES), 'Reboot');
  assert.equal(
    commandSentence('ping', { targets: [1, 2], extra: { a: 1 } }, EN),
    'Ping (targets: 1 and 2, extra: a: 1)',
  );
  // A parameter a known command's sentences do not name still shows, as a pair.
  assert.equal(commandSentence('move.stop', { reason: 'gate' }, EN), 'Stop moving (reason: gate)');
  // Not an inherited member of the table either.
  assert.equal(commandTitle('en', 'constructor'), 'Constructor');
  assert.equal(paramTitle('es', 'climate.set_target', 'temp_c'), 'Temperatura objetivo');
  assert.equal(valueTitle('es', 'climate.set_mode', 'mode', 'winter'), 'invierno');
  assert.equal(valueTitle('es', 'climate.set_mode', 'mode', 'toString'), 'toString');
});
