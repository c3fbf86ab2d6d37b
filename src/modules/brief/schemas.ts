import { type Static, Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';
import { ALERT_EXAMPLE } from '../alerts/schemas.ts';

/** What a ranked item is about, in rank order (alerts of severity info come last). */
export const BRIEF_ITEM_KINDS = [
  'alert',
  'task_overdue',
  'task_due_today',
  'milk_withheld',
  'milk_clear',
  'house',
  'doors_open',
  'device_quiet',
  'device_battery',
  'birth_overdue',
  'birth_due',
  'pregnancy_check_due',
  'heat_expected',
  'paddock_rest',
  'batch_expiring',
  'medicine_low',
  'weight_gain',
  'group_not_weighed',
] as const;
export type BriefItemKind = (typeof BRIEF_ITEM_KINDS)[number];

export const BRIEF_SEVERITIES = ['urgent', 'watch', 'info'] as const;
export type BriefSeverity = (typeof BRIEF_SEVERITIES)[number];

const num = (description: string) => Nullable(Type.Number({ description }));

export const BriefItemSchema = Type.Object({
  rank: Type.Integer({ minimum: 1, description: '1 is the most important.' }),
  kind: Type.Enum(BRIEF_ITEM_KINDS, { type: 'string' }),
  severity: Type.Enum(BRIEF_SEVERITIES, { type: 'string' }),
  title: Type.String({ description: 'One line for a person.' }),
  detail: Type.String({ description: 'Why it is listed: the value, the line or the time.' }),
  subject_type: Nullable(Type.String({ description: 'device, animal, group, paddock, … or null.' })),
  subject_id: Nullable(Type.String()),
  ref_id: Nullable(Type.String({ description: 'The alert, task, treatment or batch it is about.' })),
  at: Nullable(
    DateTime(
      'When it started: alert created_at, task due_at, a device’s last report, a paddock’s last grazing; or ends.',
    ),
  ),
});

export const BriefHouseSchema = Type.Object({
  id: Type.String({ description: 'The house device id.' }),
  name: Type.String(),
  group_id: Nullable(Type.String({ description: 'The flock the house holds.' })),
  last_reported_at: Nullable(DateTime('The house’s latest report (any report, readings or not).')),
  quiet: Type.Boolean({
    description: 'True when the house has stopped reporting (see the quiet devices rule).',
  }),
  active_alerts: Type.Integer({ description: 'Open or acknowledged alerts about this house.' }),
  feed: Type.Object({
    bin_pct: num('Feed left in the bin, % (latest reading).'),
    schedule: Type.Array(Type.String(), { description: 'Feeding times, HH:MM.' }),
    last_dispensed_kg: num('The last feed.dispense amount.'),
  }),
  water: Type.Object({ tank_pct: num('Header tank level, % (latest reading).') }),
  climate: Type.Object({
    temp_c: num('Air temperature at bird height, °C.'),
    humidity_pct: num('Relative humidity, %.'),
    nh3_ppm: num('Ammonia at bird height, ppm.'),
    co2_ppm: num('Carbon dioxide, ppm.'),
    mode: Nullable(Type.String({ description: 'auto, summer or winter.' })),
    target_temp_c: num('The target temperature the house holds, °C.'),
  }),
  power: Type.Object({
    battery_pct: num('House battery state of charge, %.'),
    solar_w: num('Solar input, W.'),
    load_w: num('Electrical load, W.'),
  }),
  doors: Type.Object({
    open: Type.Integer({ description: 'Pop doors open.' }),
    closed: Type.Integer({ description: 'Pop doors closed.' }),
    schedule: Type.Object({ open: Type.String(), close: Type.String() }),
    after_dusk: Type.Boolean({
      description: 'True when it is now between the close time (dusk) and the open time (dawn).',
    }),
  }),
  move: Type.Object({
    status: Nullable(Type.String({ description: 'stepping or stopped.' })),
    meters_per_day: num('Planned move rate.'),
    heading_deg: num('Compass heading, when set.'),
    target_paddock_id: Nullable(Type.String()),
  }),
  floor: Nullable(Type.String({ description: 'The winter floor: deployed or retracted.' })),
  birds_inside: num('Birds counted inside (latest reading).'),
  attention: Type.Array(Type.String(), {
    description: 'Short phrases for what needs attention at this house (empty when all is well).',
  }),
});

export const BriefCountsSchema = Type.Object(
  {
    alerts_urgent: Type.Integer(),
    alerts_watch: Type.Integer(),
    alerts_info: Type.Integer(),
    tasks_overdue: Type.Integer(),
    tasks_due_today: Type.Integer(),
    houses_attention: Type.Integer({ description: 'Houses with low feed or water or climate off target.' }),
    doors_open_after_dusk: Type.Integer({ description: 'Houses with pop doors open after dusk.' }),
    devices_quiet: Type.Integer(),
    devices_low_battery: Type.Integer(),
    paddocks_past_rest: Type.Integer(),
    milk_withheld: Type.Integer({ description: 'Animals whose milk is withheld past today.' }),
    milk_clear_today: Type.Integer({ description: 'Animals whose milk withdrawal ends today.' }),
    batches_expiring: Type.Integer({
      description: 'Medicine batches with stock left expiring within 30 days.',
    }),
    medicines_low_stock: Type.Integer({ description: 'Medicines at or below their low-stock line.' }),
    animals_gain_low: Type.Integer({
      description: 'Animals that lost weight or gain below settings.weights.min_adg_kg_per_day.',
    }),
    groups_not_weighed: Type.Integer({
      description: 'Groups not weighed for longer than settings.weights.weigh_interval_days.',
    }),
  },
  { description: 'Totals per kind; lists stop at 50 alerts, 50 tasks and 100 items, the counts do not.' },
);

export const BriefSchema = Type.Object(
  {
    farm_id: Type.String(),
    farm_name: Type.String(),
    timezone: Type.String(),
    generated_at: DateTime(),
    local_date: Type.String({ description: 'Today in the farm’s time zone, YYYY-MM-DD.' }),
    headline: Type.String({
      description: 'One sentence: the most important item and the counts, or a calm line on a quiet farm.',
    }),
    text: Type.String({ description: 'A short plain-language paragraph a farmer can read on a phone.' }),
    alerts: Type.Array(Type.Ref('Alert'), {
      description: 'Open and acknowledged alerts: urgent, then watch, then info; oldest first within each.',
    }),
    tasks: Type.Array(Type.Ref('Task'), {
      description: 'Open tasks overdue (before today, farm time), then due today; earliest due first.',
    }),
    houses: Type.Array(BriefHouseSchema, { description: 'Every house, oldest first.' }),
    items: Type.Array(BriefItemSchema, { description: 'Everything that needs attention, ranked.' }),
    counts: BriefCountsSchema,
  },
  {
    $id: 'Brief',
    title: 'Brief',
    examples: [
      {
        farm_id: 'farm_01kyct2fdr20b7h8952h0m29dd',
        farm_name: 'Willow Creek Farm',
        timezone: 'America/Chicago',
        generated_at: '2026-11-22T14:15:09.988Z',
        local_date: '2026-11-22',
        headline: '1 urgent alert: High ammonia in House 2.',
        text: 'Urgent: High ammonia in House 2. House 2: feed 76.8%, water 88.2%, 23.7 °C, ammonia 26.5 ppm, battery 73.2%, 14 of 14 doors open.',
        alerts: [ALERT_EXAMPLE],
        tasks: [],
        houses: [
          {
            id: 'dev_01m379xkdt1y8q9xray6w7qzb0',
            name: 'House 2',
            group_id: 'grp_01m5ctn0dr9c9psj35qf84nbn7',
            last_reported_at: '2026-11-22T14:15:00.000Z',
            quiet: false,
            active_alerts: 1,
            feed: { bin_pct: 76.8, schedule: ['06:30', '16:30'], last_dispensed_kg: null },
            water: { tank_pct: 88.2 },
            climate: {
              temp_c: 23.7,
              humidity_pct: 61,
              nh3_ppm: 26.5,
              co2_ppm: 1210,
              mode: 'auto',
              target_temp_c: 21,
            },
            power: { battery_pct: 73.2, solar_w: 240, load_w: 52 },
            doors: { open: 14, closed: 0, schedule: { open: 'dawn', close: 'dusk' }, after_dusk: false },
            move: { status: 'stopped', meters_per_day: 18, heading_deg: null, target_paddock_id: null },
            floor: 'retracted',
            birds_inside: 412,
            attention: ['ammonia 26.5 ppm'],
          },
        ],
        items: [
          {
            rank: 1,
            kind: 'alert',
            severity: 'urgent',
            title: 'High ammonia in House 2',
            detail: 'Ammonia 26.5 ppm in House 2 — at or above the urgent line of 25 ppm',
            subject_type: 'device',
            subject_id: 'dev_01m379xkdt1y8q9xray6w7qzb0',
            ref_id: 'alt_01m81j18g0672fff714ps6m6qb',
            at: '2026-11-22T12:00:00.000Z',
          },
        ],
        counts: {
          alerts_urgent: 1,
          alerts_watch: 0,
          alerts_info: 0,
          tasks_overdue: 0,
          tasks_due_today: 0,
          houses_attention: 1,
          doors_open_after_dusk: 0,
          devices_quiet: 0,
          devices_low_battery: 0,
          paddocks_past_rest: 0,
          milk_withheld: 0,
          milk_clear_today: 0,
          batches_expiring: 0,
          medicines_low_stock: 0,
          animals_gain_low: 0,
          groups_not_weighed: 0,
        },
      },
    ],
  },
);

export type Brief = Static<typeof BriefSchema>;
export type BriefItem = Static<typeof BriefItemSchema>;
export type BriefHouse = Static<typeof BriefHouseSchema>;
export type BriefCounts = Static<typeof BriefCountsSchema>;
