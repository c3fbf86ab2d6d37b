import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACTIVE_ALERT_PREDICATE } from '../db/tables/alerts.ts';
import {
  ACTIVE_ALERT_STATUSES,
  ALERT_STATUS_FILTERS,
  ALERT_STATUSES,
  COMMAND_ANSWER_STATUSES,
  COMMAND_STATUSES,
  OPEN_COMMAND_STATUSES,
} from './statuses.ts';

test('the active-alert SQL is the text the unique index of migration 0004 was built on', () => {
  // A change here changes which alerts the index holds to one per farm, rule and subject: it needs a
  // migration that rebuilds alerts_one_active with the new text.
  assert.equal(ACTIVE_ALERT_PREDICATE, "status in ('open', 'acknowledged')");
});

test('the status lists nest: active and open ones are statuses, the filters are every status and two more', () => {
  for (const s of ACTIVE_ALERT_STATUSES) assert.ok(ALERT_STATUSES.includes(s), s);
  assert.deepEqual(
    ALERT_STATUS_FILTERS.filter((f) => !(ALERT_STATUSES as readonly string[]).includes(f)),
    ['active', 'all'],
  );
  for (const s of [...OPEN_COMMAND_STATUSES, ...COMMAND_ANSWER_STATUSES]) {
    assert.ok(COMMAND_STATUSES.includes(s), s);
  }
  assert.equal(OPEN_COMMAND_STATUSES.length + COMMAND_ANSWER_STATUSES.length, COMMAND_STATUSES.length);
});
