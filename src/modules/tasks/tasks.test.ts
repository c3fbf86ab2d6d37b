import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { expectHiddenFromOutsiders } from '../../../test/outsiders.ts';
import { expectPagesNewestFirst } from '../../../test/record-pages.ts';
import type { Animal, Group, List, Paddock, Task } from '../../../test/replies.ts';

forEachEngine('tasks', (t) => {
  test('POST /v1/farms/{farm}/tasks creates a task with every field; GET returns it', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const animal = await make.animal(t(), acct.live_key, farm, { species: 'cattle' });
    const alert = await make.alertRow(t(), farm);
    const paddock = await make.paddock(t(), acct.live_key, farm, { name: 'Creek' });
    const body = {
      title: 'Check ammonia and top up bedding',
      notes: 'House 2',
      due_at: '2026-06-01T07:00:00-05:00',
      assignee: 'maria',
      status: 'open',
      subject_id: animal.id,
      alert_id: alert,
      paddock_id: paddock.id,
    };
    const res = await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, { key: acct.live_key, body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.id, /^task_/);
    assert.deepEqual(
      { ...res.body, id: undefined, created_at: undefined },
      {
        ...body,
        farm_id: farm,
        due_at: '2026-06-01T12:00:00.000Z',
        due_date: null,
        subject_type: 'animal',
        done_at: null,
        id: undefined,
        created_at: undefined,
      },
    );
    const got = await t().request('GET', `/v1/tasks/${res.body.id}`, { key: acct.live_key });
    assert.deepEqual(got.body, res.body);
  });

  test('only title is required; status defaults to open and the rest to null', async () => {
    const acct = await t().account();
    const res = await t().request<Task>('POST', `/v1/farms/${acct.sample_farm_id}/tasks`, {
      key: acct.test_key,
      body: { title: 'Fix fence' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'open');
    for (const field of [
      'notes',
      'due_at',
      'assignee',
      'subject_type',
      'subject_id',
      'alert_id',
      'done_at',
    ]) {
      assert.equal(res.body[field as keyof Task], null, field);
    }
    const doneAtOnce = await t().request<Task>('POST', `/v1/farms/${acct.sample_farm_id}/tasks`, {
      key: acct.test_key,
      body: { title: 'Already done', status: 'done' },
    });
    assert.equal(doneAtOnce.body.status, 'done');
    assert.ok(doneAtOnce.body.done_at, 'a task created done records when');
  });

  test('task validation errors are 400 naming the field, references included, and write nothing', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const other = (await make.farm(t(), acct.live_key, { name: 'Other' })).id;
    const foreignAnimal = await make.animal(t(), acct.live_key, other, { species: 'cattle' });
    const foreignAlert = await make.alertRow(t(), other);
    const cases: [unknown, string][] = [
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: 9 }, 'title'],
      [{ title: 'T', notes: 1 }, 'notes'],
      [{ title: 'T', due_at: 'tomorrow' }, 'due_at'],
      [{ title: 'T', due_at: '2026-04-31' }, 'due_at'],
      [{ title: 'T', assignee: 5 }, 'assignee'],
      [{ title: 'T', status: '' }, 'status'],
      [{ title: 'T', subject_id: 'ani_missing' }, 'subject_id'],
      [{ title: 'T', subject_id: foreignAnimal.id }, 'subject_id'],
      [{ title: 'T', subject_type: 'paddock', subject_id: 'pad_missing' }, 'subject_id'],
      [{ title: 'T', subject_type: 'group', subject_id: foreignAnimal.id }, 'subject_id'],
      [{ title: 'T', alert_id: 'alt_missing' }, 'alert_id'],
      [{ title: 'T', alert_id: foreignAlert }, 'alert_id'],
      [{ title: 'T', priority: 'high' }, 'priority'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/tasks`, { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const list = await t().request<List<Task>>('GET', `/v1/farms/${farm}/tasks`, { key: acct.live_key });
    assert.equal(list.body.data.length, 0);
  });

  test('subject_id of every known kind is checked on the farm; other ids are kept as given', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const animal = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key, body: { species: 'pig' } })
    ).body.id;
    const group = (
      await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
        key,
        body: { name: 'G', species: 'pig' },
      })
    ).body.id;
    const paddock = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P' } })
    ).body.id;
    const other = (
      await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, { key, body: { title: 'Other' } })
    ).body.id;
    const expected: [string, string][] = [
      [animal, 'animal'],
      [group, 'group'],
      [paddock, 'paddock'],
      [other, 'task'],
    ];
    for (const [subjectId, kind] of expected) {
      const res = await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, {
        key,
        body: { title: `About ${kind}`, subject_id: subjectId },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.subject_type, kind, 'inferred from the id');
    }
    const free = await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, {
      key,
      body: { title: 'About the well', subject_type: 'well', subject_id: 'north-well' },
    });
    assert.equal(free.status, 201);
    assert.equal(free.body.subject_type, 'well');
    assert.equal(free.body.subject_id, 'north-well');
  });

  test('POST /v1/tasks/{id}/done marks done and records when; repeating returns it unchanged', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const task = await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, {
      key,
      body: { title: 'Move hens' },
    });
    const before = Date.now();
    const done = await t().request<Task>('POST', `/v1/tasks/${task.body.id}/done`, { key });
    assert.equal(done.status, 200);
    assert.equal(done.body.status, 'done');
    assert.match(done.body.done_at!, /Z$/);
    assert.ok(Date.parse(done.body.done_at!) >= before - 1000);
    assert.deepEqual({ ...done.body, status: 'open', done_at: null }, task.body, 'nothing else changed');
    const again = await t().request('POST', `/v1/tasks/${task.body.id}/done`, {
      key,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, done.body, 'the second call changes nothing, done_at included');
    const reopened = await t().request<Task>('PATCH', `/v1/tasks/${task.body.id}`, {
      key,
      body: { status: 'open' },
    });
    assert.equal(reopened.body.status, 'open');
    assert.equal(reopened.body.done_at, null, 'leaving done clears done_at');
    const viaPatch = await t().request<Task>('PATCH', `/v1/tasks/${task.body.id}`, {
      key,
      body: { status: 'done' },
    });
    assert.ok(viaPatch.body.done_at, 'PATCH status done records when too');
    const rePatch = await t().request<Task>('PATCH', `/v1/tasks/${task.body.id}`, {
      key,
      body: { status: 'done', notes: 'x' },
    });
    assert.equal(rePatch.body.done_at, viaPatch.body.done_at, 'staying done keeps done_at');
    expectError(await t().request('POST', '/v1/tasks/task_missing/done', { key }), 404, 'not_found');
  });

  test('done with an earlier done_at (marked offline, sent later) keeps that time, for the task and its move; a later one counts as now', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = (await make.farm(t(), key)).id;
    const paddock = await make.paddock(t(), key, farm, { name: 'Far paddock' });
    const group = await make.group(t(), key, farm, { name: 'Ewes' });
    const task = await make.task(t(), key, farm, {
      title: 'Move the ewes',
      subject_id: group.id,
      paddock_id: paddock.id,
    });
    // Planned yesterday (the floor of a done_at is the task's creation).
    await t()
      .database.db.updateTable('tasks')
      .set({ created_at: Date.now() - 86_400_000 })
      .where('id', '=', task.id)
      .execute();
    const markedAt = new Date(Date.now() - 4 * 3_600_000).toISOString();
    const done = await t().request<Task>('POST', `/v1/tasks/${task.id}/done`, {
      key,
      body: { done_at: markedAt },
    });
    assert.equal(done.status, 200);
    assert.equal(done.body.done_at, markedAt);
    const moves = await t().request<List<{ at: string; data: { to_paddock_id: string } }>>(
      'GET',
      `/v1/farms/${farm}/events?type=move&subject_id=${group.id}`,
      { key },
    );
    assert.deepEqual(
      moves.body.data.map((m) => [m.at, m.data.to_paddock_id]),
      [[markedAt, paddock.id]],
      'the move is recorded at the time the task was done',
    );
    const stays = await t().request<{ data: { from: string; subject_id: string }[] }>(
      'GET',
      `/v1/paddocks/${paddock.id}/grazing`,
      { key },
    );
    assert.equal(stays.body.data.find((s) => s.subject_id === group.id)?.from, markedAt);

    // A time ahead of the server's (a phone's clock running fast) is taken as now: nothing is done in the future.
    const later = await make.task(t(), key, farm, { title: 'Check the trough' });
    const before = Date.now();
    const ahead = await t().request<Task>('POST', `/v1/tasks/${later.id}/done`, {
      key,
      body: { done_at: new Date(before + 86_400_000).toISOString() },
    });
    const at = Date.parse(ahead.body.done_at ?? '');
    assert.ok(at >= before - 1000 && at <= Date.now(), `done_at ${ahead.body.done_at} is now`);

    const third = await make.task(t(), key, farm, { title: 'Third' });
    const bad = expectError(
      await t().request('POST', `/v1/tasks/${third.id}/done`, { key, body: { done_at: 'yesterday' } }),
      400,
      'invalid_request',
    );
    assert.equal(bad.param, 'done_at');
    const unknown = expectError(
      await t().request('POST', `/v1/tasks/${third.id}/done`, { key, body: { when: 'now' } }),
      400,
      'invalid_request',
    );
    assert.equal(unknown.param, 'when');
    const kept = await make.fetched<Task>(t(), key, `/v1/tasks/${third.id}`);
    assert.equal(kept.status, 'open', 'a refused call marks nothing');
  });

  test('done_at before the task was created (a phone whose clock reset) counts as its creation, for the task, its move and the paddock', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = (await make.farm(t(), key)).id;
    const paddock = await make.paddock(t(), key, farm, { name: 'Back paddock' });
    const group = await make.group(t(), key, farm, { name: 'Steers' });
    const task = await make.task(t(), key, farm, {
      title: 'Move the steers',
      subject_id: group.id,
      paddock_id: paddock.id,
    });
    const done = await t().request<Task>('POST', `/v1/tasks/${task.id}/done`, {
      key,
      body: { done_at: '0001-01-01T00:00:00Z' },
    });
    assert.equal(done.status, 200);
    assert.equal(done.body.done_at, task.created_at, 'no earlier than the task');
    const moves = await t().request<List<{ at: string }>>(
      'GET',
      `/v1/farms/${farm}/events?type=move&subject_id=${group.id}`,
      { key },
    );
    assert.deepEqual(
      moves.body.data.map((m) => m.at),
      [task.created_at],
      'the move is dated with the task',
    );
    const stays = await t().request<{ data: { from: string; subject_id: string }[] }>(
      'GET',
      `/v1/paddocks/${paddock.id}/grazing`,
      { key },
    );
    assert.equal(stays.body.data.find((s) => s.subject_id === group.id)?.from, task.created_at);
  });

  test('PATCH updates any subset, clears with null, checks references, rejects unknown fields', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const paddock = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P' } })
    ).body.id;
    const alert = await make.alertRow(t(), farm);
    const task = await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, {
      key,
      body: { title: 'Walk fence', assignee: 'sam', notes: 'n' },
    });
    const url = `/v1/tasks/${task.body.id}`;
    const patched = await t().request<Task>('PATCH', url, {
      key,
      body: {
        assignee: null,
        due_at: '2026-07-04',
        subject_id: paddock,
        alert_id: alert,
        status: 'in_progress',
      },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.assignee, null);
    assert.equal(patched.body.due_at, '2026-07-04T00:00:00.000Z');
    assert.equal(patched.body.subject_type, 'paddock');
    assert.equal(patched.body.alert_id, alert);
    assert.equal(patched.body.status, 'in_progress', 'other statuses are kept as given');
    assert.equal(patched.body.title, 'Walk fence');
    assert.deepEqual((await t().request('GET', url, { key })).body, patched.body);
    const cleared = await t().request<Task>('PATCH', url, {
      key,
      body: { subject_id: null, alert_id: null },
    });
    assert.equal(cleared.body.subject_id, null);
    assert.equal(cleared.body.subject_type, null);
    assert.equal(cleared.body.alert_id, null);
    const bad: [unknown, string][] = [
      [{ titel: 'x' }, 'titel'],
      [{ title: null }, 'title'],
      [{ status: null }, 'status'],
      [{ due_at: 'x' }, 'due_at'],
      [{ subject_id: 'ani_missing' }, 'subject_id'],
      [{ alert_id: 'alt_missing' }, 'alert_id'],
      [{ done_at: '2026-01-01' }, 'done_at'],
    ];
    for (const [body, param] of bad) {
      const err = expectError(await t().request('PATCH', url, { key, body }), 400, 'invalid_request');
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const del = await t().request('DELETE', url, { key });
    assert.deepEqual(del.body, { id: task.body.id, deleted: true });
    expectError(await t().request('GET', url, { key }), 404, 'not_found');
  });

  test('list filters: status, assignee, subject_id', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const animal = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key, body: { species: 'cow' } })
    ).body.id;
    const add = async (body: Record<string, unknown>) =>
      (await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, { key, body })).body.id as string;
    const a = await add({ title: 'A', assignee: 'maria' });
    const b = await add({ title: 'B', assignee: 'sam', subject_id: animal });
    const c = await add({ title: 'C', assignee: 'maria', subject_id: animal });
    await t().request<Task>('POST', `/v1/tasks/${c}/done`, { key });
    const ids = async (query: string) =>
      (await t().request<List<Task>>('GET', `/v1/farms/${farm}/tasks?${query}`, { key })).body.data
        .map((x) => x.id)
        .sort();
    assert.deepEqual(await ids(''), [c, b, a].sort());
    assert.deepEqual(await ids('status=open'), [b, a].sort());
    assert.deepEqual(await ids('status=done'), [c]);
    assert.deepEqual(await ids('assignee=maria'), [c, a].sort());
    assert.deepEqual(await ids(`subject_id=${animal}`), [c, b].sort());
    assert.deepEqual(await ids(`subject_id=${animal}&status=open&assignee=sam`), [b]);
    expectError(
      await t().request('GET', `/v1/farms/${farm}/tasks?due=today`, { key }),
      400,
      'invalid_request',
    );
  });

  test('paging backwards over 123 tasks: newest first, no overlap', async () => {
    await expectPagesNewestFirst(t(), {
      collection: 'tasks',
      count: 123,
      limit: 8,
      body: (i) => ({ title: `T${i}` }),
    });
  });

  test("another account's and the other mode's tasks are 404 on every endpoint, done included", async () => {
    const { owner, id } = await expectHiddenFromOutsiders(t(), {
      collection: 'tasks',
      createBody: { title: 'T' },
      patchBody: { title: 'x' },
      actions: ['done'],
    });
    const still = await t().request<Task>('GET', `/v1/tasks/${id}`, { key: owner.live_key });
    assert.equal(still.body.status, 'open', 'a foreign done call changed nothing');
  });
});
