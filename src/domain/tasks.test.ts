import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localDateText } from '../lib/local-time.ts';
import { taskDue } from './tasks.ts';

/** An instant's date in a zone: the console's (Intl) and the brief's (lib/local-time.ts), which must agree. */
const READERS = {
  browser: (timeZone: string) => (at: number) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(at),
  server: (timeZone: string) => (at: number) => localDateText(at, timeZone),
};

// 10:00 on 2 December 2026 in Chicago (UTC−6).
const NOW = Date.parse('2026-12-02T16:00:00Z');
const task = (due: string | null, status = 'open') => ({
  due_at: due === null ? null : Date.parse(due),
  status,
});

for (const [side, dayIn] of Object.entries(READERS)) {
  test(`${side}: a task is due today all the farm’s day, even once its time has passed; overdue from the next day`, () => {
    const due = (at: string | null, status?: string) =>
      taskDue(task(at, status), NOW, dayIn('America/Chicago'));
    assert.equal(
      due('2026-12-02T12:00:00Z'),
      'today',
      '06:00 this morning: its time has passed, still today’s',
    );
    assert.equal(due('2026-12-02T06:00:00Z'), 'today', 'midnight this morning (a task due on a day)');
    assert.equal(due('2026-12-03T05:59:00Z'), 'today', '23:59 tonight');
    assert.equal(due('2026-12-02T05:59:00Z'), 'overdue', '23:59 last night');
    assert.equal(due('2026-12-03T06:00:00Z'), null, 'tomorrow');
    assert.equal(due(null), null, 'no due time');
    for (const closed of ['done', 'cancelled', 'canceled']) {
      assert.equal(due('2026-11-30T12:00:00Z', closed), null, `${closed}: nothing left to do`);
    }
    assert.equal(due('2026-11-30T12:00:00Z', 'in_progress'), 'overdue', 'any other status is open');
  });

  test(`${side}: the farm’s day, not UTC’s: one instant is today in Auckland and Chicago, then overdue in both`, () => {
    // 09:00 on 2 December in Auckland (UTC+13), 14:00 on 1 December in Chicago.
    const at = task('2026-12-01T20:00:00Z');
    const earlier = Date.parse('2026-12-02T03:00:00Z'); // 16:00 on the 2nd in Auckland, 21:00 on the 1st in Chicago
    assert.equal(taskDue(at, earlier, dayIn('Pacific/Auckland')), 'today');
    assert.equal(taskDue(at, earlier, dayIn('America/Chicago')), 'today');
    assert.equal(taskDue(at, NOW, dayIn('America/Chicago')), 'overdue', 'the 2nd in Chicago');
    assert.equal(taskDue(at, NOW, dayIn('Pacific/Auckland')), 'overdue', 'the 3rd in Auckland');
  });
}
