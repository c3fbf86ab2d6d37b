/**
 * Device commands in words, in every language (issue 45: a person reads "Close doors 1 and 2", never
 * `doors.close {"doors":[1,2]}`). Each command of the registry (house-commands.ts, devices.ts) has a title
 * (what the command form offers), its parameters' names (the form's labels) and whole sentences for what
 * was sent, one per combination of parameters given, with its choices' words; keyed by command, so a house
 * command or a language missing here fails to compile (command-terms.test.ts checks the device types' sets).
 * A command the product does not know (a weather station's own) is said in its code's words, its parameters
 * as "name: value" pairs. Loaded by the console's command form and a device's command history, not by pages.
 */

import { formatMessage, type Message } from '../lib/message-format.ts';
import type { LanguageName, UnitSystem } from './display-units.ts';
import { formatQuantity } from './display-units.ts';
import type { HouseCommandName } from './house-commands.ts';

/** How one command is said in one language. */
interface Said {
  /** The command's name, as the command form offers it ("Close doors"). */
  readonly title: string;
  /**
   * What was sent, as a sentence, by the parameters given: the key names them in the registry's order,
   * space-separated ('' for none); a key may pin a choice (`mode=on`), tried before the name alone. A
   * parameter is a placeholder; `count` is the first list's length or the first number given.
   */
  readonly says: Readonly<Record<string, Message>>;
  /** Each parameter's name (the form's labels, and a parameter no sentence names). */
  readonly params?: Readonly<Record<string, string>>;
  /** Words for a parameter's choices and keywords, by parameter (`auto` → "automatic", `dawn` → "at dawn"). */
  readonly values?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /**
   * A parameter's hint under its field, where its name, unit, range and choices do not say enough ("0 is
   * north"); none otherwise. (The registry's descriptions are for API readers, in English and catalog units.)
   */
  readonly hints?: Readonly<Record<string, string>>;
  /** Why the form asks before sending, said to the person (the registry's `caution` is said to an agent). */
  readonly caution?: string;
}

type TrackerCommand = 'locate' | 'set_report_interval' | 'alarm.sound' | 'alarm.silence' | 'valve.set';
export type KnownCommand = HouseCommandName | TrackerCommand;

const TIME_EN = { dawn: 'at dawn', dusk: 'at dusk', time: 'at {time}' };
const TIME_ES = { dawn: 'al amanecer', dusk: 'al anochecer', time: 'a las {time}' };

const en: Record<KnownCommand, Said> = {
  'doors.open': {
    title: 'Open pop doors',
    says: {
      'doors=all': 'Open all pop doors',
      doors: { one: 'Open pop door {doors}', other: 'Open pop doors {doors}' },
    },
    params: { doors: 'Doors' },
    caution: 'After dark, open doors let predators in.',
  },
  'doors.close': {
    title: 'Close pop doors',
    says: {
      'doors=all': 'Close all pop doors',
      doors: { one: 'Close pop door {doors}', other: 'Close pop doors {doors}' },
    },
    params: { doors: 'Doors' },
  },
  'doors.schedule': {
    title: 'Set door times',
    says: {
      'open close': 'Open the doors {open} and close them {close}',
      open: 'Open the doors {open}',
      close: 'Close the doors {close}',
    },
    params: { open: 'Opening', close: 'Closing' },
    hints: { close: 'The doors close at dusk unless set.' },
    values: { open: TIME_EN, close: TIME_EN },
  },
  'move.start': {
    title: 'Start moving',
    says: {
      'meters_per_day heading_deg': 'Start moving {meters_per_day}, heading {heading_deg}',
      meters_per_day: 'Start moving {meters_per_day}',
      '': 'Start moving',
    },
    params: { meters_per_day: 'Distance a day', heading_deg: 'Heading' },
    hints: { meters_per_day: 'One house length a day unless set.', heading_deg: '0 is north, 90 east.' },
    caution: 'A moving house can hurt animals or people in its way: make sure the way is clear.',
  },
  'move.stop': { title: 'Stop moving', says: { '': 'Stop moving' } },
  'move.to_paddock': {
    title: 'Move to a paddock',
    says: { paddock_id: 'Move to {paddock_id}' },
    params: { paddock_id: 'Paddock' },
    caution: 'A moving house can hurt animals or people in its way: make sure the way is clear.',
  },
  'feed.dispense': {
    title: 'Dispense feed',
    says: { kg: 'Dispense {kg} of feed' },
    params: { kg: 'Feed' },
  },
  'feed.schedule': {
    title: 'Set feeding times',
    says: { times: 'Feed at {times}' },
    params: { times: 'Feeding times' },
  },
  'spines.set_height': {
    title: 'Set spine height',
    says: { mm: 'Set the spines to {mm}', 'mode=auto': 'Set the spines to follow flock age' },
    params: { mm: 'Height', mode: 'Mode' },
    values: { mode: { auto: 'follow flock age' } },
  },
  'climate.set_mode': {
    title: 'Set ventilation mode',
    says: { mode: 'Set ventilation to {mode}' },
    params: { mode: 'Ventilation' },
    values: { mode: { auto: 'automatic', summer: 'summer', winter: 'winter' } },
  },
  'climate.set_target': {
    title: 'Set target temperature',
    says: { temp_c: 'Set the target temperature to {temp_c}' },
    params: { temp_c: 'Target temperature' },
  },
  'awnings.set': {
    title: 'Set awnings',
    says: {
      'position=open': 'Open the awnings',
      'position=closed': 'Close the awnings',
      position: 'Set the awnings to automatic',
    },
    params: { position: 'Position' },
    values: { position: { open: 'open', closed: 'closed', auto: 'automatic' } },
  },
  'fans.set': {
    title: 'Set fans',
    says: {
      'tunnel ridge': 'Set the fans: tunnel {tunnel}, ridge {ridge}',
      tunnel: 'Set the tunnel fans: {tunnel}',
      ridge: 'Set the ridge fans: {ridge}',
    },
    params: { tunnel: 'Tunnel fans', ridge: 'Ridge fans' },
    values: {
      tunnel: { on: 'on', off: 'off', auto: 'automatic' },
      ridge: { on: 'on', off: 'off', auto: 'automatic' },
    },
  },
  'heaters.set': {
    title: 'Set heaters',
    says: {
      'mode=on panels': { one: 'Turn heater panel {panels} on', other: 'Turn heater panels {panels} on' },
      'mode=off panels': { one: 'Turn heater panel {panels} off', other: 'Turn heater panels {panels} off' },
      'mode=auto panels': {
        one: 'Set heater panel {panels} to automatic',
        other: 'Set heater panels {panels} to automatic',
      },
      'mode=on': 'Turn the heaters on',
      'mode=off': 'Turn the heaters off',
      'mode=auto': 'Set the heaters to automatic',
    },
    params: { mode: 'Setting', panels: 'Panels' },
    hints: { panels: 'All panels unless chosen.' },
    values: { mode: { on: 'on', off: 'off', auto: 'automatic' } },
  },
  'floor.deploy': { title: 'Roll out the floor', says: { '': 'Roll out the winter floor' } },
  'floor.retract': { title: 'Roll back the floor', says: { '': 'Roll back the winter floor' } },
  'lights.set': {
    title: 'Set lights',
    says: {
      'mode=on': 'Turn the lights on',
      'mode=off': 'Turn the lights off',
      'mode=auto': 'Set the lights to automatic',
    },
    params: { mode: 'Setting' },
    values: { mode: { on: 'on', off: 'off', auto: 'automatic' } },
  },
  locate: { title: 'Locate', says: { '': 'Report the position now' } },
  set_report_interval: {
    title: 'Set report interval',
    says: { seconds: { one: 'Report every {seconds} second', other: 'Report every {seconds} seconds' } },
    params: { seconds: 'Seconds between reports' },
    hints: { seconds: 'From one minute to one day.' },
  },
  'alarm.sound': {
    title: 'Sound the alarm',
    says: {
      seconds: {
        one: 'Sound the alarm for {seconds} second',
        other: 'Sound the alarm for {seconds} seconds',
      },
      '': 'Sound the alarm',
    },
    params: { seconds: 'Seconds' },
    hints: { seconds: '30 seconds unless set.' },
  },
  'alarm.silence': { title: 'Silence the alarm', says: { '': 'Silence the alarm' } },
  'valve.set': {
    title: 'Set the valve',
    says: { 'position=open': 'Open the water valve', 'position=closed': 'Close the water valve' },
    params: { position: 'Position' },
    values: { position: { open: 'open', closed: 'closed' } },
  },
};

const es: Record<KnownCommand, Said> = {
  'doors.open': {
    title: 'Abrir trampillas',
    says: {
      'doors=all': 'Abrir todas las trampillas',
      doors: { one: 'Abrir la trampilla {doors}', other: 'Abrir las trampillas {doors}' },
    },
    params: { doors: 'Trampillas' },
    caution: 'De noche, las trampillas abiertas dejan entrar a los depredadores.',
  },
  'doors.close': {
    title: 'Cerrar trampillas',
    says: {
      'doors=all': 'Cerrar todas las trampillas',
      doors: { one: 'Cerrar la trampilla {doors}', other: 'Cerrar las trampillas {doors}' },
    },
    params: { doors: 'Trampillas' },
  },
  'doors.schedule': {
    title: 'Horario de las trampillas',
    says: {
      'open close': 'Abrir las trampillas {open} y cerrarlas {close}',
      open: 'Abrir las trampillas {open}',
      close: 'Cerrar las trampillas {close}',
    },
    params: { open: 'Apertura', close: 'Cierre' },
    hints: { close: 'Las trampillas se cierran al anochecer si no se indica.' },
    values: { open: TIME_ES, close: TIME_ES },
  },
  'move.start': {
    title: 'Empezar a moverse',
    says: {
      'meters_per_day heading_deg': 'Empezar a moverse {meters_per_day}, rumbo {heading_deg}',
      meters_per_day: 'Empezar a moverse {meters_per_day}',
      '': 'Empezar a moverse',
    },
    params: { meters_per_day: 'Distancia al día', heading_deg: 'Rumbo' },
    hints: {
      meters_per_day: 'Un largo de la casa al día si no se indica.',
      heading_deg: '0 es el norte, 90 el este.',
    },
    caution:
      'Una casa en marcha puede herir a animales o personas a su paso: compruebe que el camino está libre.',
  },
  'move.stop': { title: 'Detener la marcha', says: { '': 'Detener la marcha' } },
  'move.to_paddock': {
    title: 'Ir a un potrero',
    says: { paddock_id: 'Ir a {paddock_id}' },
    params: { paddock_id: 'Potrero' },
    caution:
      'Una casa en marcha puede herir a animales o personas a su paso: compruebe que el camino está libre.',
  },
  'feed.dispense': {
    title: 'Servir pienso',
    says: { kg: 'Servir {kg} de pienso' },
    params: { kg: 'Pienso' },
  },
  'feed.schedule': {
    title: 'Horario de comida',
    says: { times: 'Dar pienso a las {times}' },
    params: { times: 'Horas de comida' },
  },
  'spines.set_height': {
    title: 'Altura de las líneas',
    says: { mm: 'Poner las líneas a {mm}', 'mode=auto': 'Ajustar las líneas a la edad del lote' },
    params: { mm: 'Altura', mode: 'Modo' },
    values: { mode: { auto: 'según la edad del lote' } },
  },
  'climate.set_mode': {
    title: 'Modo de ventilación',
    says: { mode: 'Poner la ventilación en {mode}' },
    params: { mode: 'Ventilación' },
    values: { mode: { auto: 'automático', summer: 'verano', winter: 'invierno' } },
  },
  'climate.set_target': {
    title: 'Temperatura objetivo',
    says: { temp_c: 'Fijar la temperatura objetivo en {temp_c}' },
    params: { temp_c: 'Temperatura objetivo' },
  },
  'awnings.set': {
    title: 'Toldos',
    says: {
      'position=open': 'Abrir los toldos',
      'position=closed': 'Cerrar los toldos',
      position: 'Poner los toldos en automático',
    },
    params: { position: 'Posición' },
    values: { position: { open: 'abiertos', closed: 'cerrados', auto: 'automático' } },
  },
  'fans.set': {
    title: 'Ventiladores',
    says: {
      'tunnel ridge': 'Poner los ventiladores de túnel {tunnel} y los de cumbrera {ridge}',
      tunnel: 'Poner los ventiladores de túnel {tunnel}',
      ridge: 'Poner los ventiladores de cumbrera {ridge}',
    },
    params: { tunnel: 'Ventiladores de túnel', ridge: 'Ventiladores de cumbrera' },
    values: {
      tunnel: { on: 'en marcha', off: 'en paro', auto: 'en automático' },
      ridge: { on: 'en marcha', off: 'en paro', auto: 'en automático' },
    },
  },
  'heaters.set': {
    title: 'Calefactores',
    says: {
      'mode=on panels': {
        one: 'Encender el panel calefactor {panels}',
        other: 'Encender los paneles calefactores {panels}',
      },
      'mode=off panels': {
        one: 'Apagar el panel calefactor {panels}',
        other: 'Apagar los paneles calefactores {panels}',
      },
      'mode=auto panels': {
        one: 'Poner el panel calefactor {panels} en automático',
        other: 'Poner los paneles calefactores {panels} en automático',
      },
      'mode=on': 'Encender los calefactores',
      'mode=off': 'Apagar los calefactores',
      'mode=auto': 'Poner los calefactores en automático',
    },
    params: { mode: 'Ajuste', panels: 'Paneles' },
    hints: { panels: 'Todos los paneles si no se eligen.' },
    values: { mode: { on: 'encendidos', off: 'apagados', auto: 'automático' } },
  },
  'floor.deploy': { title: 'Desplegar el piso', says: { '': 'Desplegar el piso de invierno' } },
  'floor.retract': { title: 'Recoger el piso', says: { '': 'Recoger el piso de invierno' } },
  'lights.set': {
    title: 'Luces',
    says: {
      'mode=on': 'Encender las luces',
      'mode=off': 'Apagar las luces',
      'mode=auto': 'Poner las luces en automático',
    },
    params: { mode: 'Ajuste' },
    values: { mode: { on: 'encendidas', off: 'apagadas', auto: 'automático' } },
  },
  locate: { title: 'Localizar', says: { '': 'Informar de la posición ahora' } },
  set_report_interval: {
    title: 'Intervalo de informes',
    says: { seconds: { one: 'Informar cada {seconds} segundo', other: 'Informar cada {seconds} segundos' } },
    params: { seconds: 'Segundos entre informes' },
    hints: { seconds: 'De un minuto a un día.' },
  },
  'alarm.sound': {
    title: 'Hacer sonar la alarma',
    says: {
      seconds: {
        one: 'Hacer sonar la alarma {seconds} segundo',
        other: 'Hacer sonar la alarma {seconds} segundos',
      },
      '': 'Hacer sonar la alarma',
    },
    params: { seconds: 'Segundos' },
    hints: { seconds: '30 segundos si no se indica.' },
  },
  'alarm.silence': { title: 'Silenciar la alarma', says: { '': 'Silenciar la alarma' } },
  'valve.set': {
    title: 'Válvula',
    says: { 'position=open': 'Abrir la válvula de agua', 'position=closed': 'Cerrar la válvula de agua' },
    params: { position: 'Posición' },
    values: { position: { open: 'abierta', closed: 'cerrada' } },
  },
};

/** Every command's words, by language (command-terms.test.ts holds them to the registry). */
export const COMMAND_TERMS: Readonly<Record<LanguageName, Readonly<Record<KnownCommand, Said>>>> = { en, es };

/** What a command is said for: the reader's language, units and locale. */
export interface CommandView {
  readonly language: LanguageName;
  readonly units: UnitSystem;
  readonly locale: string;
}

/**
 * The unit a number parameter is in (the registry's `unit`), read from its name's suffix, which the registry
 * names them by: a command's sentence is said without loading the registry (command-terms.test.ts holds the
 * two equal).
 */
export function paramUnit(name: string): string {
  if (name === 'meters_per_day') return 'm/day';
  if (name.endsWith('_deg')) return '°';
  if (name.endsWith('_c')) return '°C';
  if (name.endsWith('_pct')) return '%';
  if (name === 'kg' || name.endsWith('_kg')) return 'kg';
  if (name === 'mm' || name.endsWith('_mm')) return 'mm';
  return '';
}

function saidOf(language: LanguageName, command: string): Said | null {
  const terms = COMMAND_TERMS[language];
  return Object.hasOwn(terms, command) ? terms[command as KnownCommand] : null;
}

/** A code in words: "pump.set_rate" → "Pump set rate", "flow_lpm" → "flow lpm". */
function codeWords(code: string, capital: boolean): string {
  const words = code.replaceAll(/[._]+/g, ' ').trim();
  return capital ? words.replace(/^./, (c) => c.toUpperCase()) : words;
}

/** A command's name for the command form: its title, or its code's words for a command the product does not know. */
export function commandTitle(language: LanguageName, command: string): string {
  return saidOf(language, command)?.title ?? codeWords(command, true);
}

/** A parameter's name for people ("Target temperature", "Temperatura objetivo"), or its code's words. */
export function paramTitle(language: LanguageName, command: string, param: string): string {
  const said = saidOf(language, command)?.params;
  return (said && Object.hasOwn(said, param) ? said[param] : undefined) ?? codeWords(param, true);
}

/**
 * A parameter's hint in the reader's words (command form), null when its field says enough; for a command the
 * product does not know, the description its own registry gives (its integrator's words).
 */
export function paramHint(
  language: LanguageName,
  command: string,
  param: string,
  description: string,
): string | null {
  const said = saidOf(language, command);
  if (!said) return description;
  return (said.hints && Object.hasOwn(said.hints, param) ? said.hints[param] : undefined) ?? null;
}

/**
 * Why a command is confirmed before it is sent, in the reader's words, or null; for a command the product
 * does not know, the registry's own caution.
 */
export function commandCaution(
  language: LanguageName,
  command: string,
  caution: string | undefined,
): string | null {
  const said = saidOf(language, command);
  return (said ? said.caution : caution) ?? null;
}

/** A choice or keyword of a parameter in words ("automatic", "al amanecer"), or as the registry writes it. */
export function valueTitle(language: LanguageName, command: string, param: string, value: string): string {
  const words = saidOf(language, command)?.values?.[param];
  return (words && Object.hasOwn(words, value) ? words[value] : undefined) ?? value;
}

function list(items: readonly string[], locale: string): string {
  try {
    return new Intl.ListFormat(locale, { type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

/**
 * One parameter's value in words: numbers with their unit in the reader's units, lists as the language
 * joins them ("1, 2 and 3"), times with their preposition, choices in words, a record's id by its name.
 */
function valueWords(
  command: string,
  param: string,
  value: unknown,
  view: CommandView,
  nameOf: (id: string) => string | undefined,
): string {
  const values = saidOf(view.language, command)?.values?.[param];
  if (typeof value === 'number') {
    const unit = paramUnit(param);
    return unit ? formatQuantity(value, unit, view) : formatQuantity(value, null, view, 2);
  }
  if (Array.isArray(value)) {
    return list(
      value.map((item) => (typeof item === 'number' ? formatQuantity(item, null, view, 2) : String(item))),
      view.locale,
    );
  }
  if (typeof value === 'string') {
    if (param.endsWith('_id')) return nameOf(value) ?? codeWords(param.replace(/_id$/, ''), false);
    if (values && Object.hasOwn(values, value)) return values[value] ?? value;
    if (values?.time && /^\d\d:\d\d$/.test(value)) return values.time.replace('{time}', value);
    return value;
  }
  if (value && typeof value === 'object')
    return pairs(value as Record<string, unknown>, command, view, nameOf);
  return String(value);
}

/** Parameters as "name: value" pairs, never JSON (a command the product does not know). */
function pairs(
  params: Readonly<Record<string, unknown>>,
  command: string,
  view: CommandView,
  nameOf: (id: string) => string | undefined,
): string {
  return Object.entries(params)
    .map(
      ([name, value]) =>
        `${paramTitle(view.language, command, name).toLowerCase()}: ${valueWords(command, name, value, view, nameOf)}`,
    )
    .join(', ');
}

/**
 * A command as a sentence in the reader's words and units: "Close pop doors 1 and 2", "Fijar la temperatura
 * objetivo en 24 °C". The sentence is the one for the parameters given (a pinned choice first); parameters
 * it does not name follow as pairs. A command the product does not know: its code's words, then its
 * parameters as pairs. `nameOf` names a record a parameter holds the id of (a paddock).
 */
export function commandSentence(
  command: string,
  params: Readonly<Record<string, unknown>> | null | undefined,
  view: CommandView,
  nameOf: (id: string) => string | undefined = () => undefined,
): string {
  const given = Object.entries(params ?? {}).filter(([, value]) => value !== null && value !== undefined);
  const said = saidOf(view.language, command);
  if (!said) {
    const rest = pairs(Object.fromEntries(given), command, view, nameOf);
    return rest ? `${codeWords(command, true)} (${rest})` : codeWords(command, true);
  }
  const named = keyNames(said);
  const known = given.filter(([name]) => named.has(name));
  const message = sentenceFor(said, known);
  const words: Record<string, string> = {};
  for (const [name, value] of known) words[name] = valueWords(command, name, value, view, nameOf);
  const first = known.find(([, value]) => Array.isArray(value) || typeof value === 'number')?.[1];
  const count = Array.isArray(first) ? first.length : typeof first === 'number' ? first : 0;
  const sentence = message === null ? said.title : formatMessage(view.locale, message, { ...words, count });
  // What no sentence names (a parameter a newer device added) is still said, as pairs.
  const rest = message === null ? given : given.filter(([name]) => !named.has(name));
  return rest.length > 0
    ? `${sentence} (${pairs(Object.fromEntries(rest), command, view, nameOf)})`
    : sentence;
}

/**
 * The sentence whose key names exactly the parameters given, a key pinning a choice (`mode=on`) only when
 * that is the choice given; the one pinning the most wins.
 */
function sentenceFor(said: Said, known: readonly (readonly [string, unknown])[]): Message | null {
  const given = new Map(known.map(([name, value]) => [name, value]));
  let best: Message | null = null;
  let bestPinned = -1;
  for (const [key, message] of Object.entries(said.says)) {
    const tokens = key === '' ? [] : key.split(' ');
    if (tokens.length !== given.size) continue;
    let pinned = 0;
    const fits = tokens.every((token) => {
      const [name = '', choice] = token.split('=');
      if (!given.has(name)) return false;
      if (choice === undefined) return true;
      pinned++;
      return given.get(name) === choice;
    });
    if (fits && pinned > bestPinned) {
      best = message;
      bestPinned = pinned;
    }
  }
  return best;
}

/** The parameters a command's sentences name (in their keys). */
function keyNames(said: Said): Set<string> {
  return new Set(
    Object.keys(said.says)
      .flatMap((key) => key.split(' '))
      .map((token) => token.split('=')[0] ?? '')
      .filter(Boolean),
  );
}
