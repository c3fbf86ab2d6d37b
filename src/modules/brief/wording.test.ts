import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BriefCounts, BriefItem } from './schemas.ts';
import { briefText } from './wording.ts';

const ZERO: BriefCounts = {
  alerts_urgent: 0,
  alerts_watch: 0,
  alerts_info: 0,
  tasks_overdue: 0,
  tasks_due_today: 0,
  houses_attention: 0,
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
};

const watch = (title: string) => ({ kind: 'alert', severity: 'watch', title }) as unknown as BriefItem;
const text = (titles: string[], total: number) =>
  briefText({
    farmName: 'Willow Creek',
    items: titles.map(watch),
    counts: { ...ZERO, alerts_watch: total },
    houses: [],
    now: Date.UTC(2026, 10, 29, 12),
    timezone: 'America/Chicago',
  });

test('the brief says what its "more" are; titles with a colon of their own are set apart by semicolons', () => {
  // "Pop door jammed: House 2 and 4 more" would read as four more houses.
  assert.match(
    text(['Pop door jammed: House 2', 'Feed running low in House 1', 'Device battery low for Maple'], 7),
    /Watch: Pop door jammed: House 2; Feed running low in House 1; Device battery low for Maple; and 4 more watch alerts\./,
  );
  assert.match(
    text(['Feed running low in House 1', 'Device battery low for Maple', 'Raised temperature for Clover'], 7),
    /Watch: Feed running low in House 1, Device battery low for Maple, Raised temperature for Clover and 4 more watch alerts\./,
  );
});
