import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { callTool, connect, ERAS, longitudeForSolarHour, ok, refused } from '../../../test/mcp.ts';
import type {
  Alert,
  Animal,
  BriefReply,
  Command,
  Farm,
  Group,
  HouseDevice,
  IngestReply,
  List,
  NewDevice,
  Paddock,
  Task,
} from '../../../test/replies.ts';
import { isDark } from '../../lib/solar.ts';

forEachEngine('mcp tools', (t) => {
  for (const era of ERAS) {
    test(`${era.name}: every tool works on the sample farm and its effects show through REST`, async () => {
      const acct = await t().account();
      const key = acct.test_key;
      const farmId = acct.sample_farm_id;
      // Records the tools read, made through REST (the sample farm starts empty or with sample data).
      const north = await make.posted<Paddock>(t(), key, `/v1/farms/${farmId}/paddocks`, {
        name: 'North',
        acres: 12,
        rest_days_target: 30,
        last_grazed_at: new Date(Date.now() - 40 * 86_400_000).toISOString(),
      });
      const south = await make.posted<Paddock>(t(), key, `/v1/farms/${farmId}/paddocks`, {
        name: 'South',
        acres: 9,
      });
      const herd = await make.posted<Group>(t(), key, `/v1/farms/${farmId}/groups`, {
        name: 'Cow herd',
        species: 'cattle',
        paddock_id: north.id,
      });
      const house = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
        type: 'house',
        name: 'House 7',
      });
      const ingest = await make.posted<IngestReply>(
        t(),
        house.device_key,
        '/v1/ingest',
        {
          readings: [
            { metric: 'feed.bin_pct', value: 64 },
            { metric: 'climate.nh3_ppm', value: 12, at: new Date(Date.now() - 60_000).toISOString() },
            { metric: 'climate.nh3_ppm', value: 26 },
          ],
        },
        200,
      );
      assert.equal(ingest.accepted, 3);

      const mcp = await connect(t(), key, era);
      const c = mcp.client;
      try {
        // list_farms and get_catalog
        const farms = await ok(c, 'list_farms');
        assert.ok(farms.data.some((f: any) => f.id === farmId && f.sample === true));
        assert.equal(farms.has_more, false);
        const catalog = await ok(c, 'get_catalog');
        assert.ok(catalog.metrics.some((m: any) => m.name === 'feed.bin_pct' && m.unit === '%'));
        assert.ok(catalog.commands.house.some((cmd: any) => cmd.name === 'doors.open'));

        // add_animal (farm_id left out: the test key sees only the sample farm)
        const animal = await ok(c, 'add_animal', {
          species: 'cattle',
          name: 'Daisy',
          tag: 'A12',
          eid: `982000${Math.floor(Math.random() * 1e9)}`,
          breed: 'Angus',
          group_id: herd.id,
          paddock_id: north.id,
          fields: { colour: 'black' },
        });
        assert.equal(animal.farm_id, farmId);
        assert.deepEqual(await make.fetched(t(), key, `/v1/animals/${animal.id}`), animal);

        // find_animals: q matches part of the name, filters combine
        const found = await ok(c, 'find_animals', { q: 'dais', group_id: herd.id });
        assert.deepEqual(
          found.data.map((a: any) => a.id),
          [animal.id],
        );
        const none = await ok(c, 'find_animals', { q: 'dais', paddock_id: south.id });
        assert.equal(none.data.length, 0);

        // log_event, then get_animal shows it in the history with the animal's tracker
        const tag = await make.posted<NewDevice>(t(), key, `/v1/farms/${farmId}/devices`, {
          type: 'tag',
          name: 'Ear tag A12',
          animal_id: animal.id,
        });
        const weight = await ok(c, 'log_event', { type: 'weight', subject_id: animal.id, data: { kg: 412 } });
        assert.equal(weight.subject_type, 'animal');
        assert.deepEqual(await make.fetched(t(), key, `/v1/events/${weight.id}`), weight);
        const detail = await ok(c, 'get_animal', { animal_id: animal.id });
        assert.equal(detail.animal.id, animal.id);
        assert.deepEqual(
          detail.history.map((e: any) => [e.type, e.data.kg]),
          [['weight', 412]],
        );
        assert.deepEqual(
          detail.trackers.map((d: any) => d.id),
          [tag.id],
        );

        // list_groups and list_paddocks
        const groups = await ok(c, 'list_groups', { species: 'cattle' });
        assert.ok(groups.data.some((g: any) => g.id === herd.id && g.kind === 'herd'));
        const paddocks = await ok(c, 'list_paddocks');
        const northOut = paddocks.data.find((p: any) => p.id === north.id);
        assert.equal(northOut.days_since_grazed, 40);
        assert.equal(paddocks.data.find((p: any) => p.id === south.id).days_since_grazed, null);

        // list_devices, get_readings, house_status
        const houses = await ok(c, 'list_devices', { type: 'house' });
        assert.ok(houses.data.some((d: any) => d.id === house.id));
        assert.ok(houses.data.every((d: any) => d.type === 'house'));
        const series = await ok(c, 'get_readings', { device_id: house.id, metric: 'climate.nh3_ppm' });
        assert.deepEqual(
          series.data.map((r: any) => r.value),
          [26, 12],
        );
        assert.equal(series.data[0].unit, 'ppm');
        const daily = await ok(c, 'get_readings', {
          device_id: house.id,
          metric: 'climate.nh3_ppm',
          interval: '1d',
          agg: 'count',
        });
        assert.equal(
          daily.data.reduce((sum: number, r: any) => sum + r.value, 0),
          2,
          'aggregated buckets count both readings',
        );
        const status = await ok(c, 'house_status', { house_id: house.id });
        assert.equal(status.farm_id, farmId);
        assert.equal(status.houses[0].latest_readings['climate.nh3_ppm'].value, 26);
        assert.equal(status.houses[0].latest_readings['feed.bin_pct'].value, 64);
        const all = await ok(c, 'house_status');
        assert.ok(all.houses.some((h: any) => h.id === house.id && h.state.doors));
        assert.equal(all.has_more, false, 'a farm of a few houses comes whole');
        assert.equal(all.next_page, null);
        // A page of one house at a time: each says how to get the next, and together they are every house.
        const paged: string[] = [];
        let page = await ok(c, 'house_status', { limit: 1 });
        for (;;) {
          assert.equal(page.houses.length, 1);
          paged.push(page.houses[0].id);
          if (!page.has_more) break;
          assert.match(page.next_page, /call house_status again .*before="/);
          page = await ok(c, 'house_status', { limit: 1, before: page.next_before });
        }
        assert.deepEqual(
          paged,
          all.houses.map((h: any) => h.id),
        );
        assert.ok(paged.length > 1);

        // house_command: applied at once on the sample farm; the state changes show through REST
        const closed = await ok(c, 'house_command', {
          house_id: house.id,
          command: 'doors.close',
          params: { doors: 'all' },
        });
        assert.equal(closed.command.status, 'done');
        assert.equal(closed.command.result.simulated, true);
        const moved = await ok(c, 'house_command', {
          house_id: house.id,
          command: 'move.start',
          params: { meters_per_day: 12 },
          confirm: true,
        });
        assert.equal(moved.command.params.meters_per_day, 12);
        const device = await make.fetched<HouseDevice>(t(), key, `/v1/devices/${house.id}`);
        assert.ok(Object.values(device.state.doors).every((d) => d === 'closed'));
        assert.equal(device.state.move.status, 'stepping');
        assert.equal(device.state.move.meters_per_day, 12);
        const history = await make.fetched<List<Command>>(t(), key, `/v1/devices/${house.id}/commands`);
        assert.deepEqual(
          history.data.map((cmd: any) => cmd.id),
          [moved.command.id, closed.command.id],
        );

        // list_alerts and update_alert: the ammonia reading opened an urgent alert
        const alerts = await ok(c, 'list_alerts');
        const ammonia = alerts.data.find((a: any) => a.rule === 'house.ammonia' && a.subject_id === house.id);
        assert.equal(ammonia.severity, 'urgent');
        const acked = await ok(c, 'update_alert', { alert_id: ammonia.id, action: 'acknowledge' });
        assert.equal(acked.status, 'acknowledged');
        assert.equal(
          (await make.fetched<Alert>(t(), key, `/v1/alerts/${ammonia.id}`)).status,
          'acknowledged',
        );

        // add_task, list_tasks, complete_task
        const task = await ok(c, 'add_task', {
          title: 'Clean out House 7 litter',
          subject_id: house.id,
          alert_id: ammonia.id,
          due_at: '2030-01-01',
        });
        assert.equal(task.subject_type, 'device');
        assert.deepEqual(await make.fetched(t(), key, `/v1/tasks/${task.id}`), task);
        const open = await ok(c, 'list_tasks');
        assert.ok(open.data.some((x: any) => x.id === task.id));
        const done = await ok(c, 'complete_task', { task_id: task.id });
        assert.equal(done.status, 'done');
        assert.equal((await make.fetched<Task>(t(), key, `/v1/tasks/${task.id}`)).status, 'done');
        const again = await ok(c, 'complete_task', { task_id: task.id });
        assert.equal(again.done_at, done.done_at, 'completing twice changes nothing');
        assert.ok(!(await ok(c, 'list_tasks')).data.some((x: any) => x.id === task.id), 'open tasks only');
        assert.ok((await ok(c, 'list_tasks', { status: 'all' })).data.some((x: any) => x.id === task.id));

        const resolved = await ok(c, 'update_alert', { alert_id: ammonia.id, action: 'resolve' });
        assert.equal(resolved.status, 'resolved');
        assert.ok((await make.fetched<Alert>(t(), key, `/v1/alerts/${ammonia.id}`)).resolved_at);
        const stillActive = await ok(c, 'list_alerts');
        assert.ok(!stillActive.data.some((a: any) => a.id === ammonia.id));

        // farm_brief
        const brief = await ok(c, 'farm_brief');
        assert.equal(brief.farm_id, farmId);
        assert.equal(typeof brief.headline, 'string');
        assert.deepEqual(brief, {
          ...(await make.fetched<BriefReply>(t(), key, `/v1/farms/${farmId}/brief`)),
          generated_at: brief.generated_at,
        });
      } finally {
        await mcp.close();
      }
    });
  }

  test('farm_brief: in the language asked for; an API key, which is no person’s, reads English by default', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.posted<Farm>(t(), acct.live_key, '/v1/farms', { name: 'Granja Norte' });
    const mcp = await connect(t(), acct.live_key, ERAS[1]!);
    try {
      const listed = await mcp.client.listTools();
      const tool = listed.tools.find((x) => x.name === 'farm_brief');
      assert.match(tool?.description ?? '', /Written in language \(default: your person's, else en\)/);
      assert.deepEqual((tool?.inputSchema.properties?.language as { enum?: string[] })?.enum, ['en', 'es']);

      const spanish = await callTool(mcp.client, 'farm_brief', { farm_id: farm.id, language: 'es' });
      assert.equal(spanish.isError, false, spanish.text);
      assert.equal(
        spanish.data.headline,
        'Todo tranquilo en Granja Norte: sin alertas, nada pendiente para hoy y todos los dispositivos reportando.',
      );
      assert.ok(spanish.text.startsWith(spanish.data.headline), 'the summary is in Spanish too');
      assert.deepEqual(spanish.data, {
        ...(await make.fetched<BriefReply>(t(), acct.live_key, `/v1/farms/${farm.id}/brief?language=es`)),
        generated_at: spanish.data.generated_at,
      });
      const english = await ok(mcp.client, 'farm_brief', { farm_id: farm.id });
      assert.match(english.headline, /^All quiet on Granja Norte: /);
      assert.match(await refused(mcp.client, 'farm_brief', { farm_id: farm.id, language: 'fr' }), /language/);
    } finally {
      await mcp.close();
    }
  });

  test('lists take limit and before and say how to get the next page', async () => {
    const acct = await t().account();
    const farm = await make.posted<Farm>(t(), acct.live_key, '/v1/farms', { name: 'Paging farm' });
    for (const title of ['one', 'two', 'three']) {
      await make.posted(t(), acct.live_key, `/v1/farms/${farm.id}/tasks`, { title });
    }
    const mcp = await connect(t(), acct.live_key, ERAS[0]!);
    try {
      const first = await ok(mcp.client, 'list_tasks', { limit: 2 });
      assert.deepEqual(
        first.data.map((x: any) => x.title),
        ['three', 'two'],
      );
      assert.equal(first.has_more, true);
      assert.ok(first.next_page.includes(`before="${first.next_before}"`));
      const second = await ok(mcp.client, 'list_tasks', { limit: 2, before: first.next_before });
      assert.deepEqual(
        second.data.map((x: any) => x.title),
        ['one'],
      );
      assert.equal(second.has_more, false);
      assert.equal(second.next_page, null);
    } finally {
      await mcp.close();
    }
  });

  test('farm_id may be left out only when the key sees exactly one farm', async () => {
    const acct = await t().account();
    const mcp = await connect(t(), acct.live_key, ERAS[1]!);
    try {
      assert.match(await refused(mcp.client, 'list_paddocks'), /sees no farms/);
      const a = await make.posted<Farm>(t(), acct.live_key, '/v1/farms', { name: 'Upper place' });
      assert.equal((await ok(mcp.client, 'list_paddocks')).data.length, 0, 'one farm: farm_id optional');
      const b = await make.posted<Farm>(t(), acct.live_key, '/v1/farms', { name: 'Lower place' });
      const text = await refused(mcp.client, 'find_animals', { q: 'x' });
      assert.match(text, /farm_id is required/);
      assert.ok(text.includes(`${a.id} (Upper place)`) && text.includes(`${b.id} (Lower place)`), text);
      assert.equal((await ok(mcp.client, 'list_paddocks', { farm_id: b.id })).data.length, 0);
    } finally {
      await mcp.close();
    }
  });

  test('another account’s farm and records are not found, and nothing changes there', async () => {
    const mine = await t().sharedAccount();
    const theirs = await t().account();
    const farm = await make.posted<Farm>(t(), theirs.live_key, '/v1/farms', {
      name: 'Their farm',
      lat: 0,
      lon: 0,
    });
    const animal = await make.posted<Animal>(t(), theirs.live_key, `/v1/farms/${farm.id}/animals`, {
      species: 'goat',
    });
    const house = await make.posted<NewDevice>(t(), theirs.live_key, `/v1/farms/${farm.id}/devices`, {
      type: 'house',
      name: 'H',
    });
    const task = await make.posted<Task>(t(), theirs.live_key, `/v1/farms/${farm.id}/tasks`, {
      title: 'Theirs',
    });
    const mcp = await connect(t(), mine.live_key, ERAS[0]!);
    try {
      const farmText = await refused(mcp.client, 'list_paddocks', { farm_id: farm.id });
      assert.match(farmText, /^Not found: No farm with id/);
      assert.match(farmText, /list_farms/);
      assert.match(await refused(mcp.client, 'add_animal', { farm_id: farm.id, species: 'cow' }), /No farm/);
      assert.match(
        await refused(mcp.client, 'get_animal', { animal_id: animal.id }),
        /No animal .*find_animals/,
      );
      assert.match(await refused(mcp.client, 'complete_task', { task_id: task.id }), /No task .*list_tasks/);
      assert.match(
        await refused(mcp.client, 'house_command', {
          house_id: house.id,
          command: 'lights.set',
          params: { mode: 'on' },
        }),
        /No house .*house_status/,
      );
      assert.match(await refused(mcp.client, 'get_readings', { device_id: house.id }), /No device/);
      // The same account's test key does not reach its live farms either.
      const own = await make.posted<Farm>(t(), mine.live_key, '/v1/farms', { name: 'Mine (live)' });
      const test = await connect(t(), mine.test_key, ERAS[1]!);
      try {
        assert.match(await refused(test.client, 'farm_brief', { farm_id: own.id }), /No farm/);
      } finally {
        await test.close();
      }
    } finally {
      await mcp.close();
    }
    assert.equal((await make.fetched<Task>(t(), theirs.live_key, `/v1/tasks/${task.id}`)).status, 'open');
    assert.equal(
      (await make.fetched<List<Animal>>(t(), theirs.live_key, `/v1/farms/${farm.id}/animals`)).data.length,
      1,
    );
    assert.equal(
      (await make.fetched<List<Command>>(t(), theirs.live_key, `/v1/devices/${house.id}/commands`)).data
        .length,
      0,
    );
  });

  test('bad arguments are isError results naming the argument and what is valid', async () => {
    const acct = await t().sharedAccount();
    const house = await make.posted<NewDevice>(
      t(),
      acct.test_key,
      `/v1/farms/${acct.sample_farm_id}/devices`,
      {
        type: 'house',
        name: 'House 1',
      },
    );
    const mcp = await connect(t(), acct.test_key, ERAS[1]!);
    const c = mcp.client;
    try {
      const unknownCommand = await refused(c, 'house_command', { house_id: house.id, command: 'doors.opn' });
      assert.match(unknownCommand, /command must be one of: doors\.open, doors\.close/);
      const badDoor = await refused(c, 'house_command', {
        house_id: house.id,
        command: 'doors.close',
        params: { doors: [3, 15] },
      });
      assert.match(badDoor, /`params\.doors/);
      assert.match(badDoor, /14/);
      assert.match(
        await refused(c, 'list_devices', { type: 'tractor' }),
        /type must be one of: house, bolus/,
      );
      assert.match(await refused(c, 'add_animal', { name: 'No species' }), /species is required/);
      const unknownArg = await refused(c, 'find_animals', { colour: 'red' });
      assert.match(unknownArg, /colour is not a known argument/);
      assert.match(unknownArg, /Known arguments: farm_id, species/);
      assert.match(
        await refused(c, 'list_tasks', { limit: 900 }),
        /limit must be a whole number from 1 to 500/,
      );
      assert.match(
        await refused(c, 'get_readings', { device_id: house.id, since: 'yesterday' }),
        /since must be a valid ISO 8601/,
      );
      const badSubject = await refused(c, 'add_task', { title: 'x', subject_id: 'ani_missing' });
      assert.match(badSubject, /`subject_id`/);
      assert.match(
        await refused(c, 'update_alert', { alert_id: 'alt_nope', action: 'close' }),
        /action must be one of: acknowledge, resolve/,
      );
      assert.match(
        await refused(c, 'update_alert', { alert_id: 'alt_nope', action: 'resolve' }),
        /No alert .*list_alerts/,
      );
      const paddock = await refused(c, 'house_command', {
        house_id: house.id,
        command: 'move.to_paddock',
        params: { paddock_id: 'pad_nowhere' },
        confirm: true,
      });
      assert.match(paddock, /params\.paddock_id/);
      // Nothing was sent.
      assert.equal(
        (await make.fetched<List<Command>>(t(), acct.test_key, `/v1/devices/${house.id}/commands`)).data
          .length,
        0,
      );
      // A REST duplicate EID conflict reads the same over MCP.
      const eid = `98200${Date.now()}`;
      await ok(c, 'add_animal', { species: 'sheep', eid });
      assert.match(await refused(c, 'add_animal', { species: 'sheep', eid }), /^Conflict on `eid`/);
    } finally {
      await mcp.close();
    }
  });

  for (const era of ERAS) {
    test(`${era.name}: moving a house, or opening doors after dark, needs confirm: true`, async () => {
      const acct = await t().sharedAccount();
      const key = acct.live_key;
      const now = Date.now();
      // Farms on the equator where it is about noon, or about midnight, right now.
      const dayLon = longitudeForSolarHour(now, 0);
      const nightLon = longitudeForSolarHour(now, 180);
      assert.equal(isDark(now, 0, dayLon), false);
      assert.equal(isDark(now, 0, nightLon), true);
      const dayFarm = await make.posted<Farm>(t(), key, '/v1/farms', {
        name: 'Noon farm',
        lat: 0,
        lon: dayLon,
        timezone: 'UTC',
      });
      const nightFarm = await make.posted<Farm>(t(), key, '/v1/farms', {
        name: 'Midnight farm',
        lat: 0,
        lon: nightLon,
        timezone: 'UTC',
      });
      const blindFarm = await make.posted(t(), key, '/v1/farms', { name: 'Unmapped farm' });
      const paddock = await make.posted<Paddock>(t(), key, `/v1/farms/${dayFarm.id}/paddocks`, {
        name: 'East',
      });
      const houseOf = async (farm: any) =>
        (
          await make.posted<NewDevice>(t(), key, `/v1/farms/${farm.id}/devices`, {
            type: 'house',
            name: `House of ${farm.name}`,
          })
        ).id;
      const dayHouse = await houseOf(dayFarm);
      const nightHouse = await houseOf(nightFarm);
      const blindHouse = await houseOf(blindFarm);
      const commands = async (id: string) =>
        (await make.fetched<List<Command>>(t(), key, `/v1/devices/${id}/commands`)).data;
      const doorsOpen = { command: 'doors.open', params: { doors: 'all' } };

      const mcp = await connect(t(), key, era);
      const c = mcp.client;
      try {
        // Night: doors.open is refused with the reason and the question for the farmer.
        const night = await refused(c, 'house_command', { farm_id: nightFarm.id, ...doorsOpen });
        assert.match(night, /dark at Midnight farm/);
        assert.match(night, /sunset was at \d\d:\d\d/);
        assert.match(night, /Ask the farmer/);
        assert.match(night, /confirm: true/);
        assert.equal((await commands(nightHouse)).length, 0, 'nothing queued without confirmation');
        const confirmed = await ok(c, 'house_command', {
          farm_id: nightFarm.id,
          ...doorsOpen,
          confirm: true,
        });
        assert.equal(confirmed.command.status, 'queued', 'a live farm queues the command');
        assert.deepEqual(
          (await commands(nightHouse)).map((x: any) => x.id),
          [confirmed.command.id],
        );
        // Closing doors at night needs no confirmation.
        await ok(c, 'house_command', {
          house_id: nightHouse,
          command: 'doors.close',
          params: { doors: [1, 2] },
        });

        // Day: doors.open goes straight through; moving still needs the farmer's OK.
        const day = await ok(c, 'house_command', { house_id: dayHouse, ...doorsOpen });
        assert.equal(day.command.command, 'doors.open');
        const move = await refused(c, 'house_command', { house_id: dayHouse, command: 'move.start' });
        assert.match(move, /moves the house "House of Noon farm"/);
        assert.match(move, /confirm: true/);
        const route = await refused(c, 'house_command', {
          house_id: dayHouse,
          command: 'move.to_paddock',
          params: { paddock_id: paddock.id },
          confirm: false,
        });
        assert.match(route, /Ask the farmer/);
        assert.deepEqual(
          (await commands(dayHouse)).map((x: any) => x.command),
          ['doors.open'],
        );
        const routed = await ok(c, 'house_command', {
          house_id: dayHouse,
          command: 'move.to_paddock',
          params: { paddock_id: paddock.id },
          confirm: true,
        });
        assert.equal(routed.command.params.paddock_id, paddock.id);

        // Without coordinates the farm cannot tell day from night, so it asks.
        assert.match(
          await refused(c, 'house_command', { house_id: blindHouse, ...doorsOpen }),
          /no coordinates/,
        );
        assert.equal((await commands(blindHouse)).length, 0);
      } finally {
        await mcp.close();
      }
    });
  }
});
