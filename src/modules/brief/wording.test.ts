import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BriefCounts, BriefCountsSchema, type BriefItem } from './schemas.ts';
import { briefText } from './wording.ts';

/** Every count of the brief at zero (the schema's own list of counts). */
const ZERO = Object.fromEntries(Object.keys(BriefCountsSchema.properties).map((k) => [k, 0])) as BriefCounts;

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
