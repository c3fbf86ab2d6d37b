/**
 * An animal's species and sex, and a group's kind, in the reader's words (issue 45). The API keeps them as
 * the farmer typed them (free text: "cattle", "female", "heifer", "flock"); the common English words are
 * said in Spanish for a Spanish reader ("vacuno", "hembra", "novilla", "parvada"), anything else as typed.
 * English readers see what was typed.
 * Pure: the console's animal, animals, groups, calving, chute and movements pages use it.
 */
import type { LanguageName } from './display-units.ts';

const SPECIES_ES: Readonly<Record<string, string>> = {
  cattle: 'vacuno',
  cow: 'vacuno',
  sheep: 'ovino',
  goat: 'caprino',
  pig: 'porcino',
  swine: 'porcino',
  horse: 'equino',
  chicken: 'gallina',
  poultry: 'aves',
  duck: 'pato',
  turkey: 'pavo',
  dog: 'perro',
  alpaca: 'alpaca',
  llama: 'llama',
};

const SEX_ES: Readonly<Record<string, string>> = {
  female: 'hembra',
  f: 'hembra',
  male: 'macho',
  m: 'macho',
  castrated: 'castrado',
  cow: 'vaca',
  heifer: 'novilla',
  bull: 'toro',
  steer: 'novillo castrado',
  bullock: 'novillo castrado',
  ewe: 'oveja',
  ram: 'carnero',
  wether: 'carnero castrado',
  doe: 'cabra',
  nanny: 'cabra',
  buck: 'macho cabrío',
  billy: 'macho cabrío',
  sow: 'cerda',
  gilt: 'cerda joven',
  boar: 'verraco',
  barrow: 'cerdo castrado',
  mare: 'yegua',
  filly: 'potra',
  stallion: 'semental',
  colt: 'potro',
  entire: 'entero',
  gelding: 'caballo castrado',
};

const GROUP_KIND_ES: Readonly<Record<string, string>> = {
  flock: 'parvada',
  herd: 'hato',
  pen: 'corral',
  mob: 'grupo',
  batch: 'lote',
  litter: 'camada',
  pack: 'jauría',
};

function said(table: Readonly<Record<string, string>>, language: LanguageName, value: string): string {
  if (language === 'en') return value;
  const key = value.trim().toLowerCase();
  return (Object.hasOwn(table, key) ? table[key] : undefined) ?? value;
}

/**
 * The species a form suggests where one is typed (an animal, a group, a movement, the animals filter): the
 * stored words, each shown in the reader's words by `speciesWord`. Anything else may still be typed.
 */
export const COMMON_SPECIES = [
  'cattle',
  'sheep',
  'goat',
  'pig',
  'horse',
  'chicken',
  'duck',
  'turkey',
  'dog',
] as const;

/** A species in the reader's words ("cattle" → "vacuno"), or as typed. */
export function speciesWord(language: LanguageName, species: string): string {
  return said(SPECIES_ES, language, species);
}

/** A sex in the reader's words ("female" → "hembra", "heifer" → "novilla"), or as typed. */
export function sexWord(language: LanguageName, sex: string): string {
  return said(SEX_ES, language, sex);
}

/** A group's kind in the reader's words ("flock" → "parvada"), or as typed. */
export function groupKindWord(language: LanguageName, kind: string): string {
  return said(GROUP_KIND_ES, language, kind);
}
