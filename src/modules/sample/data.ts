/**
 * What the sample farm holds: Willow Creek Farm, a mixed pasture-raised operation in central Missouri
 * with layers and broilers in two mobile houses, a cow-calf herd, feeder pigs and two guardian dogs.
 * Times are given relative to the moment of seeding (days/hours ago, or local clock times).
 */

import type { DeviceType } from '../../domain/devices.ts';
import { SQUARE_METRES_PER_ACRE } from '../../domain/display-units.ts';
import { METRES_PER_DEGREE_LAT, metresPerDegreeLon } from '../../lib/geo.ts';

export const SAMPLE_FARM = {
  name: 'Willow Creek Farm (sample)',
  timezone: 'America/Chicago',
  lat: 38.9517,
  lon: -92.3341,
  acres: 160,
} as const;

/** How long ago the sample farm was "set up" (its records' created_at). */
export const SAMPLE_FARM_AGE_DAYS = 120;

export type PaddockKey = 'creek' | 'hilltop' | 'north' | 'orchard' | 'south' | 'woods';
export type GroupKey = 'layers' | 'broilers' | 'herd' | 'pigs';

export const PADDOCKS: ReadonlyArray<{
  key: PaddockKey;
  name: string;
  acres: number;
  rest_days_target: number;
  grazedDaysAgo: number;
  geometry: Record<string, unknown>;
}> = [
  {
    key: 'creek',
    name: 'Creek Bottom',
    acres: 18,
    rest_days_target: 35,
    grazedDaysAgo: 2,
    geometry: box(38.9562, -92.3398, 18),
  },
  {
    key: 'hilltop',
    name: 'Hilltop',
    acres: 15,
    rest_days_target: 40,
    grazedDaysAgo: 2,
    geometry: box(38.9581, -92.3311, 15),
  },
  // Rested past its target and empty: the brief lists it as ready to graze.
  {
    key: 'north',
    name: 'North Flats',
    acres: 24,
    rest_days_target: 30,
    grazedDaysAgo: 41,
    geometry: box(38.9603, -92.3352, 24),
  },
  {
    key: 'orchard',
    name: 'Orchard',
    acres: 6,
    rest_days_target: 21,
    grazedDaysAgo: 1,
    geometry: box(38.9496, -92.3312, 6),
  },
  {
    key: 'south',
    name: 'South Meadow',
    acres: 20,
    rest_days_target: 30,
    grazedDaysAgo: 3,
    geometry: box(38.9468, -92.3361, 20),
  },
  {
    key: 'woods',
    name: 'Oak Woods',
    acres: 10,
    rest_days_target: 60,
    grazedDaysAgo: 9,
    geometry: box(38.9529, -92.3419, 10),
  },
];

/**
 * A GeoJSON square of `acres` around a point (its drawn area matches the acres given, so the console flags
 * none of the sample's paddocks), to six decimals.
 */
function box(lat: number, lon: number, acres: number): Record<string, unknown> {
  const halfM = Math.sqrt(acres * SQUARE_METRES_PER_ACRE) / 2;
  const dLat = Number((halfM / METRES_PER_DEGREE_LAT).toFixed(6));
  const dLon = Number((halfM / metresPerDegreeLon(lat)).toFixed(6));
  const at = (x: number, y: number) => [Number((lon + x).toFixed(6)), Number((lat + y).toFixed(6))];
  return {
    type: 'Polygon',
    coordinates: [[at(-dLon, -dLat), at(dLon, -dLat), at(dLon, dLat), at(-dLon, dLat), at(-dLon, -dLat)]],
  };
}

/**
 * Devices with a few days of track before the day of readings: the houses stepping east at their daily
 * rate to where they stand, the trackers grazing around where they are (their last position comes with
 * the day's last report, or the house's own).
 */
export const TRACKS: ReadonlyArray<{
  device: DeviceKey;
  kind: 'house' | 'grazing';
  /** Where the track ends (a house) or wanders around (a tracker). */
  lat: number;
  lon: number;
}> = [
  { device: 'house1', kind: 'house', lat: 38.9496, lon: -92.3312 },
  { device: 'house2', kind: 'house', lat: 38.9468, lon: -92.3361 },
  { device: 'tag1', kind: 'grazing', lat: 38.9562, lon: -92.3398 },
  { device: 'tag2', kind: 'grazing', lat: 38.9562, lon: -92.3398 },
  { device: 'tag3', kind: 'grazing', lat: 38.9562, lon: -92.3398 },
  { device: 'band1', kind: 'grazing', lat: 38.9469, lon: -92.3358 },
];

/** Days of track before the day of readings, one position an hour. */
export const TRACK_DAYS = 3;

export const GROUPS: ReadonlyArray<{
  key: GroupKey;
  name: string;
  species: string;
  kind: string;
  head_count: number;
  hatchDaysAgo: number | null;
  paddock: PaddockKey;
}> = [
  {
    key: 'layers',
    name: 'Laying flock',
    species: 'chicken',
    kind: 'flock',
    head_count: 280,
    hatchDaysAgo: 210,
    paddock: 'orchard',
  },
  {
    key: 'broilers',
    name: 'Broilers, batch 14',
    species: 'chicken',
    kind: 'flock',
    head_count: 300,
    hatchDaysAgo: 33,
    paddock: 'south',
  },
  // Moved from Hilltop to Creek Bottom two days ago (a logged move).
  {
    key: 'herd',
    name: 'Cow-calf herd',
    species: 'cattle',
    kind: 'herd',
    head_count: 16,
    hatchDaysAgo: null,
    paddock: 'hilltop',
  },
  {
    key: 'pigs',
    name: 'Feeder pigs',
    species: 'pig',
    kind: 'pen',
    head_count: 6,
    hatchDaysAgo: 150,
    paddock: 'woods',
  },
];

export interface SampleAnimal {
  key: string;
  species: string;
  name: string;
  tag: string;
  /** Whether the animal carries an EID (cattle do). */
  eid: boolean;
  sex: string;
  breed: string;
  bornDaysAgo: number;
  group: GroupKey | null;
  paddock: PaddockKey;
  notes?: string;
  fields?: Record<string, unknown>;
  /** Weighed at the chute yesterday (kg). */
  weighedKg?: number;
}

const cow = (
  name: string,
  tag: string,
  breed: string,
  bornDaysAgo: number,
  extra: Partial<SampleAnimal> = {},
): SampleAnimal => ({
  key: name.toLowerCase(),
  species: 'cattle',
  name,
  tag,
  eid: true,
  sex: 'female',
  breed,
  bornDaysAgo,
  group: 'herd',
  paddock: 'creek',
  ...extra,
});

export const ANIMALS: readonly SampleAnimal[] = [
  cow('Clover', '112', 'Angus', 2290, { weighedKg: 584, fields: { calving_ease: 'easy' } }),
  cow('Daisy', '114', 'Red Angus', 1930, { weighedKg: 561 }),
  cow('Buttercup', '117', 'Hereford', 2650, { weighedKg: 612 }),
  cow('Hazel', '121', 'Angus', 1560, { weighedKg: 538 }),
  cow('Juniper', '123', 'Angus × Hereford', 1480, { weighedKg: 547 }),
  cow('Maple', '126', 'Red Angus', 1210, { weighedKg: 529 }),
  cow('Willow', '129', 'Hereford', 3020, { weighedKg: 633, notes: 'Oldest cow; watch her feet.' }),
  cow('Rosie', '131', 'Angus', 1100, { weighedKg: 498 }),
  cow('Bramble', '134', 'Angus × Hereford', 840),
  cow('Poppy', '137', 'Red Angus', 820),
  cow('Ivy', '139', 'Angus', 790),
  cow('Duke', '101', 'Angus', 1840, { sex: 'male', notes: 'Herd bull.' }),
  cow('Pip', '201', 'Angus', 118, { sex: 'castrated' }),
  cow('Fern', '202', 'Red Angus', 112),
  cow('Moss', '203', 'Angus × Hereford', 109, { sex: 'castrated' }),
  cow('Sorrel', '204', 'Hereford', 97),
  ...(['Truffle', 'Acorn', 'Biscuit', 'Hazelnut', 'Chestnut', 'Pepper'] as const).map(
    (name, i): SampleAnimal => ({
      key: name.toLowerCase(),
      species: 'pig',
      name,
      tag: `P${i + 1}`,
      eid: false,
      sex: i % 2 === 0 ? 'castrated' : 'female',
      breed: i < 3 ? 'Berkshire × Tamworth' : 'Large Black',
      bornDaysAgo: 150,
      group: 'pigs',
      paddock: 'woods',
    }),
  ),
  {
    key: 'bo',
    species: 'dog',
    name: 'Bo',
    tag: 'D1',
    eid: false,
    sex: 'male',
    breed: 'Great Pyrenees',
    bornDaysAgo: 1370,
    group: null,
    paddock: 'south',
    notes: 'Livestock guardian dog with the broilers.',
  },
  {
    key: 'tess',
    species: 'dog',
    name: 'Tess',
    tag: 'D2',
    eid: false,
    sex: 'female',
    breed: 'Anatolian Shepherd',
    bornDaysAgo: 980,
    group: null,
    paddock: 'orchard',
    notes: 'Livestock guardian dog with the layers.',
  },
];

export type DeviceKey =
  | 'house1'
  | 'house2'
  | 'bolus1'
  | 'bolus2'
  | 'bolus3'
  | 'tag1'
  | 'tag2'
  | 'tag3'
  | 'band1'
  | 'guardian'
  | 'trough'
  | 'weather'
  | 'reader'
  | 'soil';

export const DEVICES: ReadonlyArray<{
  key: DeviceKey;
  type: DeviceType;
  name: string;
  serial: string;
  firmware: string;
  animal?: string;
  group?: GroupKey;
  lat?: number;
  lon?: number;
}> = [
  {
    key: 'house1',
    type: 'house',
    name: 'House 1',
    serial: 'MH-2207-0141',
    firmware: '4.2.1',
    group: 'layers',
    lat: 38.9496,
    lon: -92.3312,
  },
  {
    key: 'house2',
    type: 'house',
    name: 'House 2',
    serial: 'MH-2207-0188',
    firmware: '4.2.1',
    group: 'broilers',
    lat: 38.9468,
    lon: -92.3361,
  },
  { key: 'bolus1', type: 'bolus', name: 'Bolus 1', serial: 'RB-55012', firmware: '1.8.0', animal: 'daisy' },
  // On Clover, who is running a temperature.
  { key: 'bolus2', type: 'bolus', name: 'Bolus 2', serial: 'RB-55019', firmware: '1.8.0', animal: 'clover' },
  { key: 'bolus3', type: 'bolus', name: 'Bolus 3', serial: 'RB-55023', firmware: '1.8.0', animal: 'hazel' },
  { key: 'tag1', type: 'tag', name: 'Ear tag 1', serial: 'ET-90311', firmware: '2.3.4', animal: 'duke' },
  { key: 'tag2', type: 'tag', name: 'Ear tag 2', serial: 'ET-90318', firmware: '2.3.4', animal: 'juniper' },
  // Its battery is running out.
  { key: 'tag3', type: 'tag', name: 'Ear tag 3', serial: 'ET-90327', firmware: '2.3.1', animal: 'maple' },
  {
    key: 'band1',
    type: 'band',
    name: 'Collar band (Bo)',
    serial: 'CB-1207',
    firmware: '1.1.0',
    animal: 'bo',
  },
  {
    key: 'guardian',
    type: 'guardian',
    name: 'Guardian 1',
    serial: 'GD-3001',
    firmware: '3.0.2',
    group: 'broilers',
    lat: 38.9471,
    lon: -92.3355,
  },
  {
    key: 'trough',
    type: 'water',
    name: 'Trough sensor, Creek Bottom',
    serial: 'WS-7710',
    firmware: '1.4.2',
    group: 'herd',
    lat: 38.9559,
    lon: -92.3391,
  },
  // Quiet for 7 hours.
  {
    key: 'weather',
    type: 'weather',
    name: 'Weather station',
    serial: 'WX-0042',
    firmware: '5.0.3',
    lat: 38.9521,
    lon: -92.3337,
  },
  {
    key: 'reader',
    type: 'reader',
    name: 'EID reader (chute)',
    serial: 'RD-2208',
    firmware: '2.0.0',
    lat: 38.9527,
    lon: -92.3347,
  },
  {
    key: 'soil',
    type: 'other',
    name: 'Soil probe, North Flats',
    serial: 'SP-0917',
    firmware: '0.9.5',
    lat: 38.9603,
    lon: -92.3352,
  },
];
