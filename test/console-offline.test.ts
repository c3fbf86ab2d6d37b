/**
 * The field app in headless Chromium with the network cut (`context.setOffline(true)`): the console starts
 * with no network from the service worker's cache and the phone's IndexedDB; field changes made offline are
 * queued, survive reloading and closing the page, and reach the API exactly once when the network returns
 * (also when the sync is cut halfway and resumed, and from the service worker's Background Sync with no page
 * open); a conflict stays in "needs attention"; signing out clears
 * the phone; a new console version replaces the old one's caches; a 5,000-animal herd downloads in under 1 MB.
 * Screenshots at 360 px: the offline banner, the queue and a conflict (docs/offline.md).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { newId } from '../src/domain/ids.ts';
import { mulberry32 } from '../src/lib/random.ts';
import { deployConsoleBundle } from '../src/modules/console/assets.ts';
import type { Animal, Farm, FarmEvent, List, Task } from '../test/replies.ts';
import { screenshot } from './browser.ts';
import {
  type ConsoleWorld,
  goTo,
  PHONE,
  phoneHoldsFarm,
  serviceWorkerControls,
  signedInPage,
  startConsole,
  stored,
  workerControl,
} from './console-helpers.ts';
import * as make from './factories.ts';
import { waitFor } from './harness.ts';

let world: ConsoleWorld;

before(async () => {
  world = await startConsole();
});
after(async () => {
  await world?.close();
});

interface Field {
  farm: Farm;
  key: string;
  bramble: Animal;
  task: Task;
  alertId: string;
}

/** A live farm with a small herd (one with an EID), an open task, an open alert and a house. */
async function fieldFarm(
  name: string,
): Promise<Field & { account: Awaited<ReturnType<ConsoleWorld['t']['account']>> }> {
  const account = await world.t.account(name);
  const key = account.live_key;
  const farm = await make.farm(world.t, key, { name, timezone: 'UTC' });
  const bramble = await make.animal(world.t, key, farm.id, {
    tag: 'T-0042',
    eid: '982000000000042',
    name: 'Bramble',
  });
  await make.animal(world.t, key, farm.id, { tag: 'T-0043', name: 'Clover' });
  await make.animal(world.t, key, farm.id, { tag: 'Y-7', name: 'Hazel', species: 'sheep' });
  const task = await make.task(world.t, key, farm.id, { title: 'Check the water trough' });
  const alertId = await make.alertRow(world.t, farm.id, { title: 'Ammonia rising in House 1' });
  await make.device(world.t, key, farm.id, { type: 'house', name: 'House 1' });
  return { account, farm, key, bramble, task, alertId };
}

/**
 * Writes a value into the person's IndexedDB store, as the app would have (`key` for a store whose records
 * carry no key of their own, such as `meta`).
 */
async function putStored(
  page: Page,
  person: string,
  store: string,
  value: unknown,
  key?: string,
): Promise<void> {
  const args = JSON.stringify({ name: `farmstead-${person}`, store, value, key: key ?? null });
  await page.evaluate(`(({ name, store, value, key }) => new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction(store, 'readwrite');
      if (key === null) tx.objectStore(store).put(value);
      else tx.objectStore(store).put(value, key);
      tx.oncomplete = () => { open.result.close(); resolve(null); };
      tx.onerror = () => reject(tx.error);
    };
  }))(${args})`);
}

interface QueuedChange {
  key: string;
  state: string;
  first_sent_at: number | null;
  message: string | null;
  refusal?: { code: string; param?: string } | null;
  note?: { code: string; params?: Record<string, string> } | null;
  label: string;
}

async function queued(page: Page, person: string): Promise<QueuedChange[]> {
  return (await stored<QueuedChange[]>(page, person, 'queue')) ?? [];
}

/** A signed-in phone on the farm, online, once its service worker and first refresh are done. */
async function phone(field: Field & { account: Awaited<ReturnType<ConsoleWorld['t']['account']>> }) {
  const opened = await signedInPage(world, field.account, PHONE, 'owner', { serviceWorker: true });
  const { page } = opened;
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  await serviceWorkerControls(page);
  await phoneHoldsFarm(page, opened.person.session.person.id, field.farm.id);
  return { ...opened, context: page.context(), personId: opened.person.session.person.id };
}

async function get<T>(key: string, url: string): Promise<T> {
  const res = await world.t.request<T>('GET', url, { key });
  assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
  return res.body;
}

test('a cold start offline shows the brief and the animals from the phone; search finds by tag and EID', async () => {
  const field = await fieldFarm('Cold Start Farm');
  const { page, context, problems } = await phone(field);
  await context.setOffline(true);
  // A cold start: every page closed, then the console opened again with no network.
  const fresh = await context.newPage();
  await page.close();
  await fresh.goto(`${world.base}/`);
  await fresh.locator('h1.headline').waitFor();
  const banner = fresh.locator('.offline-banner');
  await banner.waitFor();
  assert.match((await banner.textContent()) ?? '', /Offline · as of \d\d:\d\d/);
  await screenshot(fresh, 'console-offline-brief-phone');

  await fresh.getByRole('link', { name: 'Animals' }).click();
  await fresh.getByRole('link', { name: 'T-0042' }).waitFor();
  assert.equal(await fresh.locator('table.records tbody tr').count(), 3);
  await fresh.getByLabel('Search').fill('t-0043');
  await waitFor('the tag search', async () => (await fresh.locator('table.records tbody tr').count()) === 1);
  assert.match((await fresh.locator('table.records tbody').textContent()) ?? '', /Clover/);
  await fresh.getByLabel('Search').fill('982000000000042');
  await waitFor('the EID search', async () => {
    const text = await fresh.locator('table.records tbody').textContent();
    return (await fresh.locator('table.records tbody tr').count()) === 1 && /Bramble/.test(text ?? '');
  });
  assert.ok(await fresh.locator('.offline-banner').isVisible(), 'every view says it is offline');

  // House commands are never queued: offline the form says it needs a connection.
  await goTo(fresh, 'Houses');
  await fresh.getByText('House 1').first().waitFor();
  await fresh.locator('details.send summary').first().click();
  await fresh.getByText('Sending a command needs a connection').first().waitFor();
  assert.equal(await fresh.getByRole('button', { name: 'Send', exact: true }).first().isDisabled(), true);
  assert.deepEqual(
    problems.filter((p) => !p.startsWith('foreign')),
    [],
  );
  await context.close();
});

test('offline: done, weight, new animal and acknowledge are queued, survive reload and close, and sync exactly once', async () => {
  const field = await fieldFarm('Queue Farm');
  const { page, context, personId } = await phone(field);
  await context.setOffline(true);

  await goTo(page, 'Tasks');
  await page.getByText('Check the water trough').waitFor();
  await page.locator('li.task').getByRole('button', { name: 'Done' }).click();
  await page.locator('.sync-bar').getByText('Waiting to sync (1)').waitFor();
  const doneBy = Date.now();

  await page.goto(`${world.base}/animals/${field.bramble.id}`);
  await page.getByLabel('Weight (kg)').fill('412');
  await page.getByRole('button', { name: 'Log weight' }).click();
  await page.getByText('Waiting to sync (2)').waitFor();
  const weighedBy = Date.now();

  await page.getByRole('link', { name: 'Animals', exact: true }).first().click();
  await page.getByRole('button', { name: 'Add an animal' }).click();
  const form = page.getByRole('form', { name: 'Add an animal' });
  await form.getByLabel('Species').fill('cattle');
  await form.getByLabel('Tag', { exact: true }).fill('N-9001');
  await form.getByRole('button', { name: 'Add animal' }).click();
  await page.getByText('Waiting to sync (3)').waitFor();
  // The new animal is on the phone at once, and found by its tag.
  await page.getByLabel('Search').fill('N-9001');
  await page.getByRole('table').getByRole('link', { name: 'N-9001' }).waitFor();

  await page.getByRole('link', { name: 'Alerts' }).click();
  await page.getByText('Ammonia rising in House 1').waitFor();
  await page.getByRole('button', { name: 'Acknowledge', exact: true }).click();
  await page.getByText('Waiting to sync (4)').waitFor();
  const acknowledgedBy = Date.now();
  await screenshot(page, 'console-offline-banner-phone');

  // Reload, then close every page and open the console again: the queue is still there. The page opened
  // again runs on a clock the test moves, so its retry comes without waiting for it in real time.
  await page.reload();
  await page.getByText('Waiting to sync (4)').waitFor();
  await context.clock.install();
  const again = await context.newPage();
  await page.close();
  await again.goto(`${world.base}/sync`);
  await again.getByRole('heading', { name: 'Waiting to sync' }).waitFor();
  assert.equal(await again.locator('li.change .status', { hasText: 'Waiting' }).count(), 4);
  await screenshot(again, 'console-offline-queue-phone');
  const keys = (await queued(again, personId)).map((c) => c.key);
  assert.equal(new Set(keys).size, 4, 'each change has its own Idempotency-Key');

  const back = Date.now();
  await context.setOffline(false);
  // By itself: the page opened offline retries on its own (the browser's `online` event may never come),
  // once its retry is due: a minute later (web/offline.ts retries every 15 s; a jump fires a timer once).
  await again.clock.fastForward(60_000);
  await waitFor('the sync', async () => (await queued(again, personId)).every((c) => c.state === 'synced'));
  await again.locator('li.change .status', { hasText: 'Synced' }).nth(3).waitFor();

  const task = await get<Task>(field.key, `/v1/tasks/${field.task.id}`);
  assert.equal(task.status, 'done');
  assert.ok(Date.parse(task.done_at ?? '') <= doneBy, 'done_at is when it was marked, not the sync time');
  const weights = await get<List<FarmEvent>>(
    field.key,
    `/v1/farms/${field.farm.id}/events?subject_id=${field.bramble.id}&type=weight`,
  );
  assert.equal(weights.data.length, 1, 'one weight, once');
  assert.equal(weights.data[0]?.data.kg, 412);
  const at = Date.parse(weights.data[0]?.at ?? '');
  assert.ok(at <= weighedBy && at < back, 'the event keeps the time it was logged, not the sync time');
  const added = await get<List<Animal>>(field.key, `/v1/farms/${field.farm.id}/animals?tag=N-9001`);
  assert.equal(added.data.length, 1, 'one new animal, once');
  const alert = await get<{ status: string; acknowledged_at: string }>(
    field.key,
    `/v1/alerts/${field.alertId}`,
  );
  assert.equal(alert.status, 'acknowledged');
  assert.ok(Date.parse(alert.acknowledged_at) <= acknowledgedBy, 'acknowledged when it was tapped');
  // The phone now shows the server's animal (its real id), not the one it made up.
  const animals = (await stored<{ key: string }[]>(again, personId, 'records')) ?? [];
  assert.ok(animals.some((r) => r.key === `animal:${added.data[0]?.id}`));
  assert.ok(!animals.some((r) => r.key.startsWith('animal:local_')));
  await context.close();
});

/**
 * A signed-in phone with no service worker (signedInPage's default: so routes see every request), on the
 * farm once its first refresh is done.
 */
async function plainPhone(field: Field & { account: Parameters<typeof signedInPage>[1] }) {
  const { page, person } = await signedInPage(world, field.account, PHONE, 'owner');
  const context = page.context();
  const personId = person.session.person.id;
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  await phoneHoldsFarm(page, personId, field.farm.id);
  return { context, page, personId };
}

/** Queues a change through the console's own api() in the page (offline, it goes to the queue). */
async function logWeight(page: Page, farm: string, animal: string, kg: number): Promise<void> {
  const args = JSON.stringify({ farm, animal, kg, url: await apiModule(page) });
  await page.evaluate(`(async ({ farm, animal, kg, url }) => {
    const { api } = await import(url);
    await api('POST', '/v1/farms/{farm}/events', {
      path: { farm },
      body: { type: 'weight', subject_type: 'animal', subject_id: animal, data: { kg } },
    });
  })(${args})`);
}

/** The URL of web/api.ts in this page's version of the console (the same module the app uses). */
async function apiModule(page: Page): Promise<string> {
  const src = await page.evaluate<string>(
    "document.querySelector('script[type=module]').getAttribute('src')",
  );
  return src.replace('/src/modules/console/web/app.ts', '/src/modules/console/web/api.ts');
}

test('a page’s read shares the same read still in flight, unless a write was sent since; an answer already in is not reused', async () => {
  const field = await fieldFarm('Shared Read Farm');
  const { context, page } = await plainPhone(field);
  const url = `/v1/farms/${field.farm.id}/groups?limit=7`;
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'GET' && request.url().endsWith(url)) asked.push(request.url());
  });
  const args = JSON.stringify({ farm: field.farm.id, url, module: await apiModule(page) });
  const seen = await page.evaluate<{ same: boolean; groups: number[] }>(`(async ({ farm, url, module }) => {
    const { api, sendRaw } = await import(module);
    const read = () => api('GET', '/v1/farms/{farm}/groups', { path: { farm }, query: { limit: 7 } });
    // The field app's refresh asks first; the page asks while that read is in flight.
    const [refresh, own] = await Promise.all([
      sendRaw('GET', url, undefined, { 'x-farmstead-for': 'field-app' }),
      read(),
    ]);
    // Asked again once the answer is in: the page's read goes to the server.
    const again = await read();
    // A read in flight, then a write, then the same read: the last one asks for itself.
    await Promise.all([
      read(),
      api('POST', '/v1/farms/{farm}/groups', { path: { farm }, body: { name: 'Heifers', kind: 'herd', species: 'cattle' } }),
      read(),
    ]);
    return {
      // The very answer the refresh had (a read of its own would be an equal copy, not the same object).
      same: refresh.data === own,
      groups: [own.data.length, again.data.length],
    };
  })(${args})`);
  assert.equal(seen.same, true, 'the page had the answer of the read it shared');
  assert.deepEqual(seen.groups, [0, 0]);
  // One request for the first two reads, one for the read after the answer, two around the write.
  assert.equal(asked.length, 4, asked.join('\n'));
  await context.close();
});

test('the first refresh waits for the page: a page whose module is slow to arrive still reads the groups once', async () => {
  const field = await fieldFarm('Slow Page Farm');
  const { context, page, personId } = await plainPhone(field);
  const groups = `/v1/farms/${field.farm.id}/groups?limit=100`;
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'GET' && request.url().endsWith(groups)) asked.push(request.url());
  });
  // The chute page's module arrives two seconds late. A refresh that did not wait for it had asked for the
  // groups, and had its answer, by then; the page then asked again.
  await page.route(/\/web\/pages\/chute\.ts$/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await route.continue();
  });
  const asOf = await stored<string>(page, personId, 'meta', `asof:${field.farm.id}`);
  await page.goto(`${world.base}/chute`);
  await page.locator('main h1').waitFor();
  await waitFor(
    'the refresh after the page',
    async () => (await stored<string>(page, personId, 'meta', `asof:${field.farm.id}`)) !== asOf,
  );
  assert.equal(asked.length, 1, asked.join('\n'));
  await context.close();
});

test('a sync cut off halfway (an answer lost) and resumed after a reload makes exactly one record each', async () => {
  const field = await fieldFarm('Resume Farm');
  const { context, page, personId } = await plainPhone(field);

  await context.setOffline(true);
  for (const kg of [401, 402, 403]) await logWeight(page, field.farm.id, field.bramble.id, kg);
  await page.getByText('Waiting to sync (3)').waitFor();

  // The second change reaches the server, but its answer is lost on the way back.
  let posts = 0;
  let landed = 0;
  const replayed: string[] = [];
  page.on('response', (r) => {
    if (r.headers()['idempotent-replayed'] === 'true') replayed.push(r.url());
  });
  await context.route('**/v1/farms/*/events', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const nth = ++posts;
    const response = await route.fetch();
    landed++;
    if (nth === 2) return route.abort('connectionreset');
    return route.fulfill({ response });
  });
  await context.setOffline(false);
  await waitFor('the first change to sync, the second to wait', async () => {
    const changes = await queued(page, personId);
    return changes.filter((c) => c.state === 'synced').length === 1 && landed === 2;
  });
  const events = () =>
    get<List<FarmEvent>>(field.key, `/v1/farms/${field.farm.id}/events?subject_id=${field.bramble.id}`);
  assert.equal((await events()).data.length, 2, 'the server has the first two; the phone knows of one');

  // The page is reloaded mid-sync; the resumed sync sends the second again with its key, then the third.
  await context.unroute('**/v1/farms/*/events');
  await page.reload();
  await waitFor('the resumed sync', async () =>
    (await queued(page, personId)).every((c) => c.state === 'synced'),
  );
  const kgs = (await events()).data.map((e) => e.data.kg).sort();
  assert.deepEqual(kgs, [401, 402, 403], 'exactly one record each');
  assert.equal(replayed.length, 1, 'the second was answered from its Idempotency-Key, not run again');
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  await context.close();
});

test('a task deleted on the server while the phone was offline lands in "needs attention"; discard removes it', async () => {
  const field = await fieldFarm('Conflict Farm');
  const { page, context, personId, person } = await phone(field);
  await context.setOffline(true);
  await goTo(page, 'Tasks');
  await page.locator('li.task').getByRole('button', { name: 'Done' }).click();
  await page.getByText('Waiting to sync (1)').waitFor();
  const deleted = await world.t.request('DELETE', `/v1/tasks/${field.task.id}`, { key: field.key });
  assert.equal(deleted.status, 200);

  await context.setOffline(false);
  await page.locator('.sync-bar').getByText('1 needs attention').waitFor();
  await page.locator('.sync-bar').getByText('1 needs attention').click();
  const card = page.locator('li.change.needs-attention');
  await card.waitFor();
  assert.match((await card.textContent()) ?? '', /Task done: Check the water trough/);
  assert.match((await card.textContent()) ?? '', /Needs attention/);
  // Deleted on the server: said in a person's words (nothing to fix or send it to, only to discard); the
  // server's own message, which names the task's id, is a technical detail.
  const shown = (await card.locator(':scope > p').allTextContents()).join('\n');
  assert.match(shown, /It was deleted on Farmstead while this phone was away/);
  assert.doesNotMatch(shown, /task_|No task with id/);
  assert.match(
    (await card.locator('details.said').textContent()) ?? '',
    /No task with id "task_/,
    'the server’s own message',
  );
  assert.equal(await card.getByRole('button', { name: 'Send again' }).count(), 0);
  assert.equal(await card.getByRole('button', { name: 'Fix' }).count(), 0);
  await screenshot(page, 'console-offline-conflict-phone');
  const [change] = await queued(page, personId);
  assert.equal(change?.state, 'attention');
  assert.deepEqual(change?.refusal, { code: 'not_found' }, 'the refusal’s code is kept with the change');

  // A Spanish reader reads the refusal in Spanish, by its code; the server's sentence is a technical detail.
  const spanish = await person.request('PATCH', '/v1/me', { body: { language: 'es' } });
  assert.equal(spanish.status, 200);
  await page.reload();
  const tarjeta = page.locator('li.change.needs-attention');
  await tarjeta.getByText('Se eliminó en Farmstead mientras este teléfono estaba sin conexión').waitFor();
  const details = tarjeta.locator('details.said');
  assert.equal(await details.locator('summary').textContent(), 'Detalles técnicos');
  assert.match((await details.textContent()) ?? '', /No task with id "task_/);
  await screenshot(page, 'console-offline-conflict-phone-es');
  const english = await person.request('PATCH', '/v1/me', { body: { language: 'en' } });
  assert.equal(english.status, 200);
  await page.reload();
  await card.waitFor();

  page.once('dialog', (dialog) => void dialog.accept());
  await card.getByRole('button', { name: 'Discard' }).click();
  await waitFor('the discard', async () => (await queued(page, personId)).length === 0);
  await page.getByText('Nothing waiting').waitFor();
  await context.close();
});

test('a task someone else marked done while the phone was offline syncs with a note saying so', async () => {
  const field = await fieldFarm('Done Twice Farm');
  const second = await make.task(world.t, field.key, field.farm.id, { title: 'Top up the grit' });
  const { page, context, personId } = await phone(field);
  await context.setOffline(true);
  await goTo(page, 'Tasks');
  for (const title of ['Check the water trough', 'Top up the grit']) {
    await page.locator('li.task', { hasText: title }).getByRole('button', { name: 'Done' }).click();
  }
  await page.getByText('Waiting to sync (2)').waitFor();
  // Meanwhile, with signal, a colleague marks the first one done.
  const colleague = await world.t.request<Task>('POST', `/v1/tasks/${field.task.id}/done`, {
    key: field.key,
  });
  assert.equal(colleague.status, 200);

  await context.setOffline(false);
  await page.evaluate('dispatchEvent(new Event("online"))');
  await waitFor('the sync', async () => {
    const changes = await queued(page, personId);
    return changes.length === 2 && changes.every((c) => c.state === 'synced') && changes;
  });
  // The note is kept as a code (the service worker may write it, knowing no language); /sync says it.
  const notes = new Map((await queued(page, personId)).map((c) => [c.label, c.note?.code ?? c.message]));
  assert.equal(
    notes.get('Task done: Check the water trough'),
    'done_by_other',
    'the colleague’s done is kept, and said',
  );
  assert.equal(notes.get('Task done: Top up the grit'), null, 'the phone’s own done has no note');
  const task = await get<Task>(field.key, `/v1/tasks/${field.task.id}`);
  assert.equal(task.done_at, colleague.body.done_at, 'the first done stands');
  const mine = await get<Task>(field.key, `/v1/tasks/${second.id}`);
  assert.equal(mine.status, 'done');
  await page.goto(`${world.base}/sync`);
  await page.getByText(/Already done by someone else/).waitFor();
  await context.close();
});

test('with no console open, Background Sync has the service worker send the queue, exactly once', async () => {
  const field = await fieldFarm('Background Farm');
  const { page, context, personId } = await phone(field);
  // The tags the page asks Background Sync for. (This headless Chromium has no Background Sync of its own:
  // registering is refused, as in a browser without it, and the page carries on. The event is dispatched
  // below through the DevTools protocol, as Chromium fires it when it sees a network again.)
  await page.evaluate(`(() => {
    window.syncTags = [];
    const register = SyncManager.prototype.register;
    SyncManager.prototype.register = function (tag) {
      window.syncTags.push(tag);
      return register.call(this, tag);
    };
  })()`);
  await context.setOffline(true);
  await logWeight(page, field.farm.id, field.bramble.id, 405);
  await page.getByText('Waiting to sync (1)').waitFor();
  const tag = `farmstead-sync:${personId}`;
  await waitFor('Background Sync to be asked for', async () =>
    (await page.evaluate<string[]>('window.syncTags')).includes(tag),
  );
  // A sync that finds no network asks again (the browser may have used up the first asking meanwhile).
  await page.evaluate('window.syncTags = []');
  const offlineModule = (await apiModule(page)).replace('api.ts', 'offline.ts');
  await page.evaluate(`import(${JSON.stringify(offlineModule)}).then((m) => m.syncNow())`);
  await waitFor('Background Sync to be asked for again', async () =>
    (await page.evaluate<string[]>('window.syncTags')).includes(tag),
  );
  // Every console page closed (only a blank tab left, for the DevTools protocol), then the signal returns and
  // the `sync` event comes.
  const { cdp, registrationId } = await workerControl(world, await context.newPage());
  await page.close();
  await context.setOffline(false);
  const weights = async () =>
    (
      await get<List<FarmEvent>>(
        field.key,
        `/v1/farms/${field.farm.id}/events?subject_id=${field.bramble.id}&type=weight`,
      )
    ).data;
  assert.equal((await weights()).length, 0);
  await cdp.send('ServiceWorker.dispatchSyncEvent', {
    origin: world.base,
    registrationId,
    tag,
    lastChance: false,
  });
  const sent = await waitFor('the worker to send the weight', async () => {
    const now = await weights();
    return now.length > 0 && now;
  });
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.data.kg, 405);

  // The console opened again finds the change synced by the worker, and sends nothing twice.
  const again = await context.newPage();
  await again.goto(`${world.base}/sync`);
  await again.locator('li.change .status', { hasText: 'Synced' }).waitFor();
  const [change] = await queued(again, personId);
  assert.equal(change?.state, 'synced');
  await again.getByRole('button', { name: 'Sync now' }).click();
  await again.getByText('Synced what could be.').waitFor();
  assert.equal((await weights()).length, 1, 'exactly once');
  await context.close();
});

test('signing out warns about unsynced changes, then clears the phone; the next person sees none of it', async () => {
  const field = await fieldFarm('Shared Phone Farm');
  const { page, context, personId } = await phone(field);
  await context.setOffline(true);
  await logWeight(page, field.farm.id, field.bramble.id, 399);
  await page.getByText('Waiting to sync (1)').waitFor();
  // Held back so the change is still unsynced when the person signs out.
  await context.route('**/v1/farms/*/events', (route) =>
    route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue(),
  );
  await context.setOffline(false);

  const asked: string[] = [];
  page.once('dialog', (dialog) => {
    asked.push(dialog.message());
    void dialog.dismiss();
  });
  await page.getByRole('button', { name: 'More' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await waitFor('the warning', () => asked.length === 1);
  assert.match(asked[0] ?? '', /1 change made on this phone has not reached Farmstead yet/);
  assert.equal((await queued(page, personId)).length, 1, 'cancelled: nothing is deleted');

  // The person syncs from the button first; then signing out has nothing to warn about.
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  await page.locator('.sync-bar').getByRole('button', { name: 'Sync now' }).click();
  await waitFor('the sync', async () => (await queued(page, personId)).every((c) => c.state === 'synced'));
  page.once('dialog', (dialog) => {
    asked.push(dialog.message());
    void dialog.dismiss();
  });
  // More is still open (signing out was cancelled).
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: /sign in/i }).waitFor();
  const names = await page.evaluate<(string | undefined)[]>(
    '(async () => (await indexedDB.databases()).map((d) => d.name))()',
  );
  assert.ok(!names.includes(`farmstead-${personId}`), `left behind: ${names.join(', ')}`);
  assert.equal(await page.evaluate<string | null>("localStorage.getItem('farmstead.person')"), null);
  assert.equal(asked.length, 1, 'no warning when everything had synced');

  // Another person signs in on the same phone (the same browser context): their own, empty, phone data.
  const next = await signedInPage(world, field.account, PHONE, 'crew');
  await context.addCookies(await next.page.context().cookies());
  await next.page.context().close();
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  const nextId = next.person.session.person.id;
  await phoneHoldsFarm(page, nextId, field.farm.id);
  assert.equal(await page.evaluate<string | null>("localStorage.getItem('farmstead.person')"), nextId);
  assert.deepEqual(await queued(page, nextId), []);
  assert.equal(await page.locator('.sync-bar').count(), 0);
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  await context.close();
});

test('a new console version installs cleanly: its files cached, the old caches removed, no mixed versions', async () => {
  const field = await fieldFarm('Update Farm');
  const { page, context } = await phone(field);
  const before = await page.evaluate<string[]>('caches.keys()');
  const oldVersion = (await (await fetch(`${world.base}/sw.js`)).text()).match(/VERSION = '(\w+)'/)?.[1];
  assert.deepEqual(before, [`farmstead-${oldVersion}-shell`]);

  const next = await deployConsoleBundle('offline-test-2');
  assert.notEqual(next.hash, oldVersion);
  await page.evaluate('navigator.serviceWorker.getRegistration().then((r) => r.update())');
  await waitFor('the new version to take over', async () => {
    const keys = await page.evaluate<string[]>('caches.keys()');
    return keys.length === 1 && keys[0] === `farmstead-${next.hash}-shell`;
  });
  await page.getByText('Farmstead was updated').waitFor();

  const requested: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/console/assets/')) requested.push(r.url());
  });
  await page.reload();
  await page.locator('h1.headline').waitFor();
  assert.ok(requested.length > 5);
  for (const url of requested) assert.match(url, new RegExp(`/console/assets/${next.hash}/`), url);
  // And offline the new version's page opens from its own cache.
  await context.setOffline(true);
  await page.reload();
  await page.locator('h1.headline').waitFor();
  const src = await page.evaluate<string>(
    "document.querySelector('script[type=module]').getAttribute('src')",
  );
  assert.match(src, new RegExp(`/console/assets/${next.hash}/`));
  await context.close();
});

test('the first download of a 5,000-animal herd is under 1 MB compressed; the next asks only for what changed', async () => {
  const account = await world.t.account('Big Herd');
  const farm = await make.farm(world.t, account.live_key, { name: 'Big Herd', timezone: 'UTC' });
  // A herd as a real one looks: ids as the API makes them, random EIDs, tags, breeds, weights and notes.
  const random = mulberry32(5000);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const base = Date.now() - 400 * 86_400_000;
  const rows = Array.from({ length: 5000 }, () => {
    const created = base + Math.floor(random() * 300 * 86_400_000);
    const tag = `${pick(['Y', 'R', 'G', 'B'])}-${Math.floor(random() * 100_000)}`;
    const name =
      random() < 0.3 ? pick(['Bess', 'Clover', 'Daisy', 'Hazel', 'Mabel', 'Rosie', 'Tilly']) : null;
    const breed = pick(['Angus', 'Hereford', 'Shorthorn', 'Simmental', 'Charolais', null]);
    const eid = `982${String(Math.floor(random() * 1e12)).padStart(12, '0')}`;
    return make.animalRow({
      id: newId('animal', created),
      farm_id: farm.id,
      account_id: account.account_id,
      species: 'cattle',
      tag,
      eid,
      name,
      breed,
      sex: pick(['female', 'male', 'castrated']),
      birth_date: created - Math.floor(random() * 700) * 86_400_000,
      status: random() < 0.95 ? 'active' : pick(['sold', 'dead', 'missing']),
      notes:
        random() < 0.2
          ? pick(['Calm.', 'Lame front left, watch.', 'Twin.', 'Bought at the March sale.'])
          : null,
      fields: JSON.stringify(random() < 0.5 ? { weaning_kg: Math.round(200 + random() * 100) } : {}),
      search_text: [name, tag, eid, breed].filter(Boolean).join('\n').toLowerCase(),
      created_at: created,
    });
  });
  for (let i = 0; i < rows.length; i += 500) {
    await world.t.database.db
      .insertInto('animals')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  const opened = await signedInPage(world, account, PHONE, 'owner');
  const { page } = opened;
  // The bytes on the wire (compressed) of every farm answer the page and its first sync fetch, and as read.
  const bodies: Promise<{ wire: number; read: number }>[] = [];
  page.on('requestfinished', (request) => {
    if (new URL(request.url()).pathname.startsWith('/v1/farms/')) {
      bodies.push(
        Promise.all([request.sizes(), request.response().then((r) => r?.body())]).then(([sizes, body]) => ({
          wire: sizes.responseBodySize,
          read: body?.length ?? 0,
        })),
      );
    }
  });
  await page.goto(`${world.base}/`);
  await page.locator('h1.headline').waitFor();
  const personId = opened.person.session.person.id;
  await phoneHoldsFarm(page, personId, farm.id);
  const answers = await Promise.all(bodies);
  const bytes = answers.reduce((sum, a) => sum + a.wire, 0);
  const read = answers.reduce((sum, a) => sum + a.read, 0);
  const kept = ((await stored<{ kind: string }[]>(page, personId, 'records')) ?? []).filter(
    (r) => r.kind === 'animal',
  );
  assert.equal(kept.length, 5000, 'the whole herd is on the phone');
  assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
  assert.ok(read > 1_000_000 && bytes < read / 3, `${bytes} bytes on the wire for ${read} read: compressed`);
  console.log(`# first offline download of 5,000 animals: ${bytes} bytes compressed (${read} as JSON)`);

  // The next refresh asks only for what changed since: one animal edited, not the herd again.
  const edited = rows[17]?.id ?? '';
  const patched = await world.t.request('PATCH', `/v1/animals/${edited}`, {
    key: account.live_key,
    body: { notes: 'Moved to the sick pen.' },
  });
  assert.equal(patched.status, 200);
  const changes: Promise<{ url: string; wire: number; animals: number }>[] = [];
  page.on('requestfinished', (request) => {
    if (request.url().includes('/animals/changes')) {
      changes.push(
        Promise.all([request.sizes(), request.response().then((r) => r?.json())]).then(([sizes, body]) => ({
          url: request.url(),
          wire: sizes.responseBodySize,
          animals: (body as { data: unknown[] }).data.length,
        })),
      );
    }
  });
  const offlineModule = (await apiModule(page)).replace('api.ts', 'offline.ts');
  await page.evaluate(`import(${JSON.stringify(offlineModule)}).then((m) => m.syncNow())`);
  await waitFor('the refresh', () => changes.length > 0);
  const [next] = await Promise.all(changes);
  assert.match(next?.url ?? '', /since=\d+/);
  assert.equal(next?.animals, 1, 'only the animal that changed');
  assert.ok((next?.wire ?? 0) < 2048, `${next?.wire} bytes`);
  // The answer has arrived; the phone writes it into its database a moment later.
  await waitFor(
    'the edited animal on the phone',
    async () =>
      (await stored<{ data: { notes: string } }>(page, personId, 'records', `animal:${edited}`))?.data
        .notes === 'Moved to the sick pen.',
  );
  await page.context().close();
});

test('a phone away longer than the server remembers deletions gets the whole herd again, and drops what was deleted', async () => {
  const field = await fieldFarm('Long Away Farm');
  const { page, context, personId } = await phone(field);
  const held = async () =>
    ((await stored<{ key: string; kind: string }[]>(page, personId, 'records')) ?? [])
      .filter((r) => r.kind === 'animal')
      .map((r) => r.key)
      .sort();
  assert.equal((await held()).length, 3);
  // The phone last refreshed 100 days ago (the server keeps deleted ids 90 days); Bramble went since.
  const since = String(Date.now() - 100 * 86_400_000);
  await putStored(page, personId, 'meta', since, `since:${field.farm.id}`);
  const gone = await world.t.request('DELETE', `/v1/animals/${field.bramble.id}`, { key: field.key });
  assert.equal(gone.status, 200);

  const offlineModule = (await apiModule(page)).replace('api.ts', 'offline.ts');
  await page.evaluate(`import(${JSON.stringify(offlineModule)}).then((m) => m.syncNow())`);
  await waitFor('the refresh', async () => (await held()).length === 2);
  assert.ok(
    !(await held()).includes(`animal:${field.bramble.id}`),
    'the deleted animal is gone from the phone',
  );
  await context.close();
});

test('two tabs syncing at once send each change once (Web Lock), and an animal edited offline syncs', async () => {
  const field = await fieldFarm('Two Tabs Farm');
  const { page, context, personId } = await phone(field);
  const second = await context.newPage();
  await second.goto(`${world.base}/`);
  await second.locator('h1.headline').waitFor();
  await context.setOffline(true);

  // An edit on the animal's page: notes and status.
  await page.goto(`${world.base}/animals/${field.bramble.id}`);
  await page.getByRole('button', { name: 'Edit' }).click();
  const form = page.getByRole('form', { name: 'Edit' });
  await form.getByLabel('Notes').fill('Lame front left, watch.');
  await form.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Waiting to sync (1)').waitFor();
  for (const kg of [420, 421]) await logWeight(page, field.farm.id, field.bramble.id, kg);
  await page.getByText('Waiting to sync (3)').waitFor();

  const sent: string[] = [];
  context.on('request', (r) => {
    if (r.method() !== 'GET' && r.url().includes('/v1/') && !r.url().includes('/session')) sent.push(r.url());
  });
  await context.setOffline(false);
  // Both tabs are told at once.
  const syncBoth = `(async () => { const m = await import(${JSON.stringify((await apiModule(page)).replace('api.ts', 'offline.ts'))}); await m.syncNow(); })()`;
  await Promise.all([page.evaluate(syncBoth), second.evaluate(syncBoth)]);
  await waitFor('the sync', async () => (await queued(page, personId)).every((c) => c.state === 'synced'));
  assert.equal(sent.length, 3, `sent: ${sent.join(', ')}`);
  const animal = await get<Animal>(field.key, `/v1/animals/${field.bramble.id}`);
  assert.equal(animal.notes, 'Lame front left, watch.');
  const weights = await get<List<FarmEvent>>(
    field.key,
    `/v1/farms/${field.farm.id}/events?subject_id=${field.bramble.id}&type=weight`,
  );
  assert.deepEqual(weights.data.map((e) => e.data.kg).sort(), [420, 421]);
  await context.close();
});

test('a change sent over a day ago without an answer is not sent again by itself: it waits for a person', async () => {
  const field = await fieldFarm('Old Change Farm');
  const { context, page, personId } = await plainPhone(field);

  // Online, but the answer is lost: the change is queued as possibly arrived.
  // (Held back from then on, so the queue cannot send it again before its time is moved.)
  let reached = 0;
  await context.route('**/v1/farms/*/events', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    if (reached++ === 0) await route.fetch();
    return route.abort('connectionreset');
  });
  await logWeight(page, field.farm.id, field.bramble.id, 430);
  const [change] = await queued(page, personId);
  assert.equal(change?.state, 'waiting');
  assert.ok(change?.first_sent_at, 'it was sent once');
  // Its first sending moved 25 hours back: the server's key (kept 24 hours) may be gone.
  const kept = await stored<Record<string, unknown>>(page, personId, 'queue', change?.key);
  await putStored(page, personId, 'queue', { ...kept, first_sent_at: Date.now() - 25 * 3_600_000 });
  await context.unrouteAll({ behavior: 'ignoreErrors' });

  const posts: string[] = [];
  context.on('request', (r) => {
    if (r.method() === 'POST') posts.push(r.url());
  });
  await page.goto(`${world.base}/sync`);
  const card = page.locator('li.change.needs-attention');
  await card.waitFor();
  assert.match((await card.textContent()) ?? '', /Sent more than a day ago without an answer/);
  assert.deepEqual(posts, [], 'nothing was sent again by itself');
  const events = () =>
    get<List<FarmEvent>>(field.key, `/v1/farms/${field.farm.id}/events?subject_id=${field.bramble.id}`);
  assert.equal((await events()).data.length, 1);

  // Having checked, the person sends it again: a new request with a new key.
  await card.getByRole('button', { name: 'Send again' }).click();
  const resent = await waitFor('the resend', async () => {
    const [now] = await queued(page, personId);
    return now?.key !== change?.key && now?.state === 'synced' && now;
  });
  assert.ok(resent);
  assert.equal((await events()).data.length, 2);
  await context.close();
});

test('offline, the event log takes an event on a paddock and on a device, each picked by name; each arrives once with its time', async () => {
  const field = await fieldFarm('Event Log Farm');
  const paddock = await make.paddock(world.t, field.key, field.farm.id, { name: 'Far paddock' });
  const meter = await make.device(world.t, field.key, field.farm.id, { type: 'water', name: 'Trough meter' });
  const { page, context, personId } = await phone(field);
  await context.setOffline(true);
  // The Devices page lists the farm's devices (houses too) from the phone.
  await goTo(page, 'Devices');
  await page.getByText('Trough meter').first().waitFor();
  await page.getByText('House 1').first().waitFor();
  await goTo(page, 'Event log');
  const form = page.getByRole('form', { name: 'Log an event' });
  // The subject is chosen by its name in the picker, as a person does: no id is typed.
  const log = async (type: string, name: string, notes: string, count: number) => {
    await form.getByLabel('Type', { exact: true }).selectOption(type);
    const about = form.getByRole('combobox', { name: 'About (optional)' });
    await about.fill('');
    await about.pressSequentially(name);
    await page.getByRole('option').filter({ hasText: name }).first().click();
    await form.getByLabel('Notes').fill(notes);
    await form.getByRole('button', { name: 'Log event' }).click();
    await page.getByText(`Waiting to sync (${count})`).waitFor();
  };
  await log('treatment', 'Far paddock', 'Sprayed thistles', 1);
  // The farm's devices are kept on the phone: the picker offers one by its name offline.
  await log('note', 'Trough meter', 'Float valve sticking', 2);
  const madeBy = Date.now();
  // The log shows what the phone holds: the two events not yet synced (the list reloads after the
  // queue's count has changed, so it is waited for).
  await page.locator('ul.history li').nth(1).waitFor();
  assert.equal(await page.locator('ul.history li').count(), 2);

  // Back online: the sync starts by itself.
  await context.setOffline(false);
  await waitFor('the sync', async () => (await queued(page, personId)).every((c) => c.state === 'synced'));
  for (const [id, type] of [
    [paddock.id, 'treatment'],
    [meter.id, 'note'],
  ] as const) {
    const events = await get<List<FarmEvent>>(
      field.key,
      `/v1/farms/${field.farm.id}/events?subject_id=${id}`,
    );
    assert.equal(events.data.length, 1, `${type} once`);
    assert.equal(events.data[0]?.type, type);
    assert.ok(Date.parse(events.data[0]?.at ?? '') <= madeBy, 'its time is when it was logged');
  }
  await context.close();
});

test('an event on an animal deleted on the server while offline needs attention; fixed to another animal, it is sent once', async () => {
  const field = await fieldFarm('Fix Farm');
  const animals = await get<List<{ id: string; tag: string | null }>>(
    field.key,
    `/v1/farms/${field.farm.id}/animals`,
  );
  const clover = animals.data.find((a) => a.tag === 'T-0043')?.id ?? '';
  const { page, context, personId } = await phone(field);
  await context.setOffline(true);
  await goTo(page, 'Event log');
  const form = page.getByRole('form', { name: 'Log an event' });
  await form.getByLabel('Type', { exact: true }).selectOption('treatment');
  const about = form.getByRole('combobox', { name: 'About (optional)' });
  await about.click();
  await about.pressSequentially('Bramble');
  await page.getByRole('option').filter({ hasText: 'Bramble' }).first().click();
  await form.getByLabel('Notes').fill('Foot rot spray');
  await form.getByRole('button', { name: 'Log event' }).click();
  await page.getByText('Waiting to sync (1)').waitFor();
  const gone = await world.t.request('DELETE', `/v1/animals/${field.bramble.id}`, { key: field.key });
  assert.equal(gone.status, 200);

  await context.setOffline(false);
  await page.locator('.sync-bar').getByText('1 needs attention').click();
  const card = page.locator('li.change.needs-attention');
  await card.waitFor();
  assert.match((await card.textContent()) ?? '', /is not an animal on this farm/, 'the server’s own message');
  await card.getByRole('button', { name: 'Fix' }).click();
  const fix = page.getByRole('form', { name: /^Fix: / });
  await fix.getByLabel('About (the animal’s or group’s id)').fill(clover);
  await fix.getByRole('button', { name: 'Send again' }).click();
  await waitFor('the fixed change to sync', async () =>
    (await queued(page, personId)).every((c) => c.state === 'synced'),
  );
  const events = await get<List<FarmEvent>>(
    field.key,
    `/v1/farms/${field.farm.id}/events?subject_id=${clover}`,
  );
  assert.deepEqual(
    events.data.map((e) => e.type),
    ['treatment'],
    'one event, on the animal it was fixed to',
  );
  await context.close();
});

test('online, an answer lost on the way back: the change is sent again with the same key and is one record', async () => {
  const field = await fieldFarm('Lost Answer Farm');
  const { context, page, personId } = await plainPhone(field);
  let first = true;
  await context.route('**/v1/farms/*/events', async (route) => {
    if (route.request().method() !== 'POST' || !first) return route.continue();
    first = false;
    await route.fetch();
    return route.abort('connectionreset');
  });
  await logWeight(page, field.farm.id, field.bramble.id, 433);
  await page.getByText('Waiting to sync (1)').waitFor();
  // The next call that reaches the server starts the sync (here: opening the alerts).
  await page.getByRole('link', { name: 'Alerts' }).click();
  await waitFor('the resend', async () => (await queued(page, personId)).every((c) => c.state === 'synced'));
  const events = await get<List<FarmEvent>>(
    field.key,
    `/v1/farms/${field.farm.id}/events?subject_id=${field.bramble.id}`,
  );
  assert.equal(events.data.length, 1, 'one record');
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  await context.close();
});
