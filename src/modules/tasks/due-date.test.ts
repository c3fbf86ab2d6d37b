import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from '../../../test/harness.ts';
import type { Farm, Task } from '../../../test/replies.ts';

/** The local calendar date and clock of an instant in a zone, by Intl (not the code under test). */
function wallClock(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
}

/** The local date (YYYY-MM-DD) `days` from now in a zone. */
function localDate(timeZone: string, days = 0): string {
  return wallClock(new Date(Date.now() + days * 86_400_000).toISOString(), timeZone).slice(0, 10);
}

interface BriefItem {
  kind: string;
  title: string;
  detail: string;
  ref_id: string | null;
}

forEachEngine('tasks due on a date, on farms far from UTC', (t) => {
  async function farmIn(key: string, timezone: string): Promise<string> {
    const farm = await t().request<Farm>('POST', '/v1/farms', { key, body: { name: timezone, timezone } });
    assert.equal(farm.status, 201);
    return farm.body.id;
  }

  test('a date without a time is that day in the farm’s zone: due_at its local midnight, due_date the day', async () => {
    const acct = await t().sharedAccount();
    const cases: Array<[string, string]> = [
      ['America/Chicago', '2026-11-28T06:00:00.000Z'], // CST, UTC−6
      ['Pacific/Auckland', '2026-11-27T11:00:00.000Z'], // NZDT, UTC+13: the 28th starts on the 27th in UTC
      ['UTC', '2026-11-28T00:00:00.000Z'],
    ];
    for (const [zone, start] of cases) {
      const farmId = await farmIn(acct.live_key, zone);
      const made = await t().request<Task>('POST', `/v1/farms/${farmId}/tasks`, {
        key: acct.live_key,
        body: { title: 'Order feed', due_at: '2026-11-28' },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.due_at, start, zone);
      assert.equal(made.body.due_date, '2026-11-28');
      assert.equal(wallClock(made.body.due_at ?? '', zone), '2026-11-28, 00:00');
      const timed = await t().request<Task>('POST', `/v1/farms/${farmId}/tasks`, {
        key: acct.live_key,
        body: { title: 'Vet visit', due_at: '2026-11-28T15:00:00Z' },
      });
      assert.equal(timed.body.due_at, '2026-11-28T15:00:00.000Z', 'a time keeps its instant');
      assert.equal(timed.body.due_date, null);
      // PATCH follows the same rule either way.
      const toDate = await t().request<Task>('PATCH', `/v1/tasks/${timed.body.id}`, {
        key: acct.live_key,
        body: { due_at: '2026-12-01' },
      });
      assert.equal(toDate.body.due_date, '2026-12-01');
      assert.equal(wallClock(toDate.body.due_at ?? '', zone), '2026-12-01, 00:00');
      const toTime = await t().request<Task>('PATCH', `/v1/tasks/${timed.body.id}`, {
        key: acct.live_key,
        body: { due_at: '2026-12-01T09:30:00Z' },
      });
      assert.equal(toTime.body.due_date, null);
      assert.equal(toTime.body.due_at, '2026-12-01T09:30:00.000Z');
    }
  });

  test('a task due today (a date) is due all the local day without a time; one due yesterday is overdue', async () => {
    const acct = await t().sharedAccount();
    for (const zone of ['America/Chicago', 'Pacific/Auckland']) {
      const farmId = await farmIn(acct.live_key, zone);
      const task = async (title: string, due_at: string) =>
        (
          await t().request<Task>('POST', `/v1/farms/${farmId}/tasks`, {
            key: acct.live_key,
            body: { title, due_at },
          })
        ).body;
      const today = await task('Move the flock', localDate(zone));
      const yesterday = await task('Mend the fence', localDate(zone, -1));
      const tomorrow = await task('Collect eggs', localDate(zone, 1));
      const brief = await t().request<{ items: BriefItem[] }>('GET', `/v1/farms/${farmId}/brief`, {
        key: acct.live_key,
      });
      const byRef = (id: string) => brief.body.items.find((i) => i.ref_id === id);
      assert.equal(byRef(today.id)?.kind, 'task_due_today', zone);
      assert.equal(byRef(today.id)?.detail, 'Due today', 'a task due on a day shows no time');
      assert.equal(byRef(yesterday.id)?.kind, 'task_overdue', zone);
      assert.equal(byRef(yesterday.id)?.detail, `Overdue: due ${localDate(zone, -1)}`);
      assert.equal(byRef(tomorrow.id), undefined, 'tomorrow’s task is not due yet');
    }
  });

  test('a farm’s new time zone moves its date-only tasks to that zone’s midnight of the same day', async () => {
    const acct = await t().sharedAccount();
    const farmId = await farmIn(acct.live_key, 'America/Chicago');
    const made = await t().request<Task>('POST', `/v1/farms/${farmId}/tasks`, {
      key: acct.live_key,
      body: { title: 'Shear', due_at: '2026-11-28' },
    });
    const timed = await t().request<Task>('POST', `/v1/farms/${farmId}/tasks`, {
      key: acct.live_key,
      body: { title: 'Call', due_at: '2026-11-28T15:00:00Z' },
    });
    await t().request('PATCH', `/v1/farms/${farmId}`, {
      key: acct.live_key,
      body: { timezone: 'Pacific/Auckland' },
    });
    const moved = await t().request<Task>('GET', `/v1/tasks/${made.body.id}`, { key: acct.live_key });
    assert.equal(moved.body.due_date, '2026-11-28');
    assert.equal(moved.body.due_at, '2026-11-27T11:00:00.000Z');
    const kept = await t().request<Task>('GET', `/v1/tasks/${timed.body.id}`, { key: acct.live_key });
    assert.equal(kept.body.due_at, '2026-11-28T15:00:00.000Z', 'a time is an instant whatever the zone');
  });
});
