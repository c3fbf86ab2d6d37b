/**
 * What has been happening on the sample farm: the commands its houses were given, recent farm events
 * and the crew's tasks. Times are relative to the moment of seeding.
 */

import type { HouseCommandName } from '../../domain/house-commands.ts';
import type { RuleName } from '../../domain/rules.ts';
import { DAY_MS, HOUR_MS } from '../../lib/time.ts';
import type { DeviceKey, GroupKey, PaddockKey } from './data.ts';
import type { SampleClock } from './series.ts';

/** A sample record named by its key in data.ts; exactly one member is set. */
export type SampleSubject =
  | { paddock: PaddockKey; group?: never; animal?: never; device?: never }
  | { group: GroupKey; paddock?: never; animal?: never; device?: never }
  | { animal: string; paddock?: never; group?: never; device?: never }
  | { device: DeviceKey; paddock?: never; group?: never; animal?: never };

/** House settings made with (simulated) commands, so each house shows recent commands. */
export const COMMANDS: ReadonlyArray<{
  device: DeviceKey;
  command: HouseCommandName;
  params: Record<string, unknown>;
  hoursAgo: number;
}> = [
  { device: 'house1', command: 'feed.schedule', params: { times: ['06:30', '16:30'] }, hoursAgo: 70 },
  { device: 'house1', command: 'move.start', params: { meters_per_day: 18, heading_deg: 95 }, hoursAgo: 50 },
  { device: 'house2', command: 'climate.set_target', params: { temp_c: 24 }, hoursAgo: 52 },
  { device: 'house2', command: 'feed.dispense', params: { kg: 12 }, hoursAgo: 13 },
  { device: 'house2', command: 'move.stop', params: {}, hoursAgo: 30 },
];

/** The moment of seeding, the farm's clock, and a local clock time relative to its today. */
export interface SampleTime {
  now: number;
  clock: SampleClock;
  local(due: LocalDue): number;
}

/** Recent farm events (the scale's weighings are added from the animals' weights). */
export const EVENTS: ReadonlyArray<{
  type: string;
  subject: SampleSubject;
  data: Record<string, unknown>;
  at: (t: SampleTime) => number;
}> = [
  {
    type: 'feed.delivery',
    subject: { device: 'house2' },
    data: { kg: 340, supplier: 'Hillside Mill', ration: 'broiler grower' },
    at: (t) => t.now - 12.5 * HOUR_MS,
  },
  {
    type: 'egg.collection',
    subject: { group: 'layers' },
    data: { eggs: 236, cracked: 4 },
    // The last 10:30 collection at least two hours ago.
    at: (t) => t.clock.lastLocal(10, 30) - (t.clock.lastLocal(10, 30) > t.now - 2 * HOUR_MS ? DAY_MS : 0),
  },
  {
    type: 'treatment',
    subject: { group: 'pigs' },
    data: { product: 'Ivermectin 1%', dose_ml_per_head: 2.5, route: 'injection', withdrawal_days: 18 },
    at: (t) => t.local({ daysFromToday: -1, hh: 15, mm: 20 }),
  },
  {
    type: 'note',
    subject: { paddock: 'north' },
    data: { text: 'Clover and orchardgrass have recovered well; ready for the herd.' },
    at: (t) => t.now - 3 * DAY_MS,
  },
  {
    type: 'hay.delivery',
    subject: { paddock: 'creek' },
    data: { bales: 40, kind: 'round', supplier: 'Miller Farms' },
    at: (t) => t.now - 4 * DAY_MS,
  },
];

/** A local clock time `daysFromToday` days from the farm's today (negative: past). */
export interface LocalDue {
  daysFromToday: number;
  hh: number;
  mm: number;
}

export const TASKS: ReadonlyArray<{
  title: string;
  notes?: string;
  due: LocalDue | null;
  assignee?: string;
  status?: string;
  subject?: SampleSubject;
  /** Links the task to the open alert of this rule (opened by the readings). */
  alertRule?: RuleName;
  createdDaysAgo: number;
}> = [
  {
    title: 'Fix the electric fence on the Hilltop boundary',
    notes: 'Two insulators down near the gate; the herd left, so it can wait a day, not a week.',
    due: { daysFromToday: -2, hh: 17, mm: 0 },
    assignee: 'Sam',
    subject: { paddock: 'hilltop' },
    createdDaysAgo: 4,
  },
  {
    title: 'Order layer feed (1 t)',
    notes: 'House 1 bin is running down; call Hillside Mill.',
    due: { daysFromToday: -1, hh: 12, mm: 0 },
    assignee: 'Ana',
    subject: { device: 'house1' },
    createdDaysAgo: 3,
  },
  {
    title: 'Collect and wash eggs',
    due: { daysFromToday: 0, hh: 10, mm: 0 },
    assignee: 'Ana',
    subject: { group: 'layers' },
    createdDaysAgo: 1,
  },
  {
    title: "Check Clover's temperature and call the vet if it stays up",
    due: { daysFromToday: 0, hh: 11, mm: 30 },
    assignee: 'Sam',
    subject: { animal: 'clover' },
    alertRule: 'animal.fever',
    createdDaysAgo: 0,
  },
  {
    title: 'Move the herd to North Flats',
    notes: 'North Flats has rested 41 days; check the trough first.',
    due: { daysFromToday: 0, hh: 16, mm: 0 },
    assignee: 'Sam',
    subject: { group: 'herd' },
    createdDaysAgo: 1,
  },
  {
    title: 'Replace the battery in Ear tag 3',
    due: { daysFromToday: 3, hh: 9, mm: 0 },
    assignee: 'Sam',
    subject: { device: 'tag3' },
    alertRule: 'device.battery',
    createdDaysAgo: 0,
  },
  {
    title: 'Book the processor for broiler batch 14',
    due: { daysFromToday: 20, hh: 9, mm: 0 },
    subject: { group: 'broilers' },
    createdDaysAgo: 5,
  },
  {
    title: 'Deworm the feeder pigs',
    due: { daysFromToday: -1, hh: 15, mm: 0 },
    assignee: 'Ana',
    status: 'done',
    subject: { group: 'pigs' },
    createdDaysAgo: 6,
  },
];
