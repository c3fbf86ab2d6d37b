/**
 * The people roles, enforced by the server for every request from a session (ROLE_PRESETS in
 * src/domain/permissions.ts). The owner-only routes are derived from the app's route table (each route's access) and the
 * crew preset, not picked by hand: a route added later is covered without editing this test.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missingPermission, ROLE_PRESETS } from '../src/domain/permissions.ts';
import type { RouteEntry } from '../src/http/route-table.ts';
import type { Alert } from '../src/modules/alerts/schemas.ts';
import type { Command } from '../src/modules/commands/schemas.ts';
import type { Device } from '../src/modules/devices/schemas.ts';
import type { Task } from '../src/modules/tasks/schemas.ts';
import { expectError, forEachEngine } from './harness.ts';
import { signedInPerson } from './people.ts';

type List<T> = { data: T[] };

/** Routes a crew session may not call: their access needs a permission the crew preset lacks. */
function ownerOnly(table: RouteEntry[]): RouteEntry[] {
  return table.filter(
    (r) =>
      r.auth === 'api' &&
      typeof r.access === 'object' &&
      missingPermission(ROLE_PRESETS.crew, r.access.needs) !== null,
  );
}

/** A concrete path for a route pattern: the farm parameter is a real farm, other ids made up. */
function pathOf(url: string, farm: string): string {
  return url.replace(/:farm\b/, farm).replace(/:[a-z_]+/g, 'x_nope');
}

forEachEngine('people roles', (t) => {
  test('a crew session is refused (403 naming the permission) on every owner-only route of the route table', async () => {
    const acct = await t().sharedAccount();
    const crew = await signedInPerson(t(), acct, 'crew');
    const routes = ownerOnly(t().app.routeTable.routes);
    const names = new Set(routes.map((r) => `${r.method} ${r.url}`));
    // The derivation finds what the issue names: keys, webhooks, people, farm settings, rules and deletes.
    for (const expected of [
      'POST /v1/keys',
      'GET /v1/keys',
      'GET /v1/usage',
      'GET /v1/farms/:farm/webhooks',
      'GET /v1/people',
      'POST /v1/people/invites',
      'PATCH /v1/farms/:farm',
      'POST /v1/farms',
      'POST /v1/farms/:farm/rules',
      'DELETE /v1/tasks/:id',
      'DELETE /v1/animals/:id',
      'POST /v1/farms/:farm/reset',
    ]) {
      assert.ok(names.has(expected), `${expected} should be owner-only`);
    }
    for (const route of routes) {
      for (const method of route.method.split(',')) {
        const res = await crew.request(method, pathOf(route.url, acct.sample_farm_id), {
          ...(method === 'GET' || method === 'HEAD' || method === 'DELETE' ? {} : { body: {} }),
        });
        if (method === 'HEAD') {
          assert.equal(res.status, 403, `HEAD ${route.url}`);
          continue;
        }
        const error = expectError(res, 403, 'forbidden');
        assert.match(
          error.message,
          /^Your role \(crew\) does not allow [a-z]+:(read|write|delete)/,
          route.url,
        );
      }
    }
  });

  test('crew reads everything on the farm and does field work: acknowledge and resolve alerts, add, edit and complete tasks, log events, send a house command', async () => {
    const acct = await t().sharedAccount();
    const crew = await signedInPerson(t(), acct, 'crew');
    const farm = acct.sample_farm_id;
    for (const path of ['brief', 'animals', 'houses', 'devices', 'alerts', 'tasks', 'events', 'rules']) {
      assert.equal((await crew.request('GET', `/v1/farms/${farm}/${path}`)).status, 200, path);
    }
    const alerts = await crew.request<List<Alert>>('GET', `/v1/farms/${farm}/alerts?status=open`);
    const alert = alerts.body.data[0];
    assert.ok(alert, 'the sample farm has an open alert');
    const acked = await crew.request<Alert>('POST', `/v1/alerts/${alert.id}/acknowledge`, { body: {} });
    assert.equal(acked.status, 200, JSON.stringify(acked.body));
    assert.equal(acked.body.status, 'acknowledged');
    const resolved = await crew.request<Alert>('POST', `/v1/alerts/${alert.id}/resolve`, { body: {} });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.equal(resolved.body.status, 'resolved');

    const task = await crew.request<Task>('POST', `/v1/farms/${farm}/tasks`, {
      body: { title: 'Top up grit' },
    });
    assert.equal(task.status, 201);
    const edited = await crew.request<Task>('PATCH', `/v1/tasks/${task.body.id}`, {
      body: { title: 'Top up grit in house 2' },
    });
    assert.equal(edited.status, 200);
    assert.equal((await crew.request('POST', `/v1/tasks/${task.body.id}/done`, { body: {} })).status, 200);
    expectError(await crew.request('DELETE', `/v1/tasks/${task.body.id}`), 403, 'forbidden');

    const event = await crew.request('POST', `/v1/farms/${farm}/events`, {
      body: { type: 'note', data: { text: 'Fox tracks by the south fence' } },
    });
    assert.equal(event.status, 201, JSON.stringify(event.body));

    const devices = await crew.request<List<Device>>('GET', `/v1/farms/${farm}/devices`);
    const house = devices.body.data.find((d) => d.type === 'house');
    assert.ok(house);
    const command = await crew.request<Command>('POST', `/v1/devices/${house.id}/commands`, {
      body: { command: 'lights.set', params: { mode: 'on' } },
    });
    assert.ok([200, 201, 202].includes(command.status), JSON.stringify(command.body));
    expectError(
      await crew.request('PATCH', `/v1/devices/${house.id}`, { body: { name: 'Renamed' } }),
      403,
      'forbidden',
    );
  });

  test('an owner session may do what crew may not', async () => {
    const acct = await t().sharedAccount();
    const owner = await signedInPerson(t(), acct, 'owner');
    assert.equal((await owner.request('GET', '/v1/keys')).status, 200);
    assert.equal((await owner.request('GET', `/v1/farms/${acct.sample_farm_id}/webhooks`)).status, 200);
    assert.equal((await owner.request('GET', '/v1/people')).status, 200);
  });
});
