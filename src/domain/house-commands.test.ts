import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildCatalog } from './catalog.ts';
import { validateDeviceCommand } from './devices.ts';
import {
  applyHouseCommandToState,
  DEFAULT_MOVE_RATE_M_PER_DAY,
  HOUSE_COMMAND_NAMES,
  HOUSE_COMMANDS,
  paramsJsonSchema,
  validateHouseCommand,
} from './house-commands.ts';
import { defaultHouseState } from './house-state.ts';

function accepts(command: string, params: unknown): Record<string, unknown> {
  const result = validateHouseCommand(command, params);
  assert.ok(result.ok, `expected ${command} ${JSON.stringify(params)} to pass: ${JSON.stringify(result)}`);
  return result.params;
}

function rejects(command: string, params: unknown, param: string, messagePart: RegExp) {
  const result = validateHouseCommand(command, params);
  assert.equal(result.ok, false, `expected ${command} ${JSON.stringify(params)} to fail`);
  if (result.ok) return;
  assert.equal(result.param, param);
  assert.match(result.message, messagePart);
}

describe('house command table', () => {
  test('has the 17 commands of the spec', () => {
    assert.deepEqual(HOUSE_COMMAND_NAMES, [
      'doors.open',
      'doors.close',
      'doors.schedule',
      'move.start',
      'move.stop',
      'move.to_paddock',
      'feed.dispense',
      'feed.schedule',
      'spines.set_height',
      'climate.set_mode',
      'climate.set_target',
      'awnings.set',
      'fans.set',
      'heaters.set',
      'floor.deploy',
      'floor.retract',
      'lights.set',
    ]);
  });

  test('every params schema forbids unknown members and is JSON-serialisable', () => {
    for (const spec of HOUSE_COMMANDS) {
      const schema = paramsJsonSchema(spec);
      assert.equal(schema.additionalProperties, false, spec.name);
      assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema);
    }
  });

  test('doors schema carries "all" and the 1-14 bounds', () => {
    const doorsOpen = HOUSE_COMMANDS.find((c) => c.name === 'doors.open');
    assert.ok(doorsOpen);
    const doors = JSON.stringify(paramsJsonSchema(doorsOpen));
    assert.match(doors, /"const":"all"/);
    assert.match(doors, /"minimum":1,"maximum":14/);
  });
});

describe('validateHouseCommand', () => {
  test('unknown command lists the valid ones', () => {
    rejects('doors.toggle', {}, 'command', /Unknown house command "doors\.toggle".*doors\.open.*lights\.set/);
  });

  test('params must be an object; absent or null params count as none', () => {
    rejects('move.stop', [], 'params', /must be an object/);
    rejects('move.stop', 'x', 'params', /must be an object/);
    assert.deepEqual(accepts('move.stop', undefined), {});
    assert.deepEqual(accepts('floor.deploy', null), {});
  });

  test('unknown param is rejected with its name', () => {
    rejects('doors.open', { doors: 'all', speed: 2 }, 'params.speed', /no parameter "speed".*doors/);
    rejects('move.stop', { now: true }, 'params.now', /takes no parameters/);
  });

  test('doors: all, or a list of distinct doors 1-14', () => {
    assert.deepEqual(accepts('doors.open', { doors: 'all' }), { doors: 'all' });
    assert.deepEqual(accepts('doors.close', { doors: [1, 14, 7] }), { doors: [1, 14, 7] });
    rejects('doors.open', {}, 'params.doors', /needs doors/);
    rejects('doors.open', { doors: [1, 0] }, 'params.doors[1]', /1 to 14; got 0/);
    rejects('doors.open', { doors: [15] }, 'params.doors[0]', /1 to 14; got 15/);
    rejects('doors.open', { doors: [2.5] }, 'params.doors[0]', /whole numbers/);
    rejects('doors.open', { doors: ['3'] }, 'params.doors[0]', /got "3"/);
    rejects('doors.close', { doors: [3, 4, 3] }, 'params.doors[2]', /door 3 is listed more than once/);
    rejects('doors.close', { doors: [] }, 'params.doors', /"all" or a non-empty list/);
    rejects('doors.close', { doors: 'ALL' }, 'params.doors', /"all" or a non-empty list/);
  });

  test('doors.schedule takes HH:MM, dawn for open and dusk for close, at least one', () => {
    assert.deepEqual(accepts('doors.schedule', { open: '06:30', close: 'dusk' }), {
      open: '06:30',
      close: 'dusk',
    });
    assert.deepEqual(accepts('doors.schedule', { open: 'dawn' }), { open: 'dawn' });
    assert.deepEqual(accepts('doors.schedule', { close: '23:59' }), { close: '23:59' });
    rejects('doors.schedule', {}, 'params', /at least one of: open, close/);
    rejects('doors.schedule', { open: '24:00' }, 'params.open', /HH:MM .* or dawn; got "24:00"/);
    rejects('doors.schedule', { open: '6:30' }, 'params.open', /HH:MM/);
    rejects('doors.schedule', { close: '19:60' }, 'params.close', /or dusk; got "19:60"/);
    rejects('doors.schedule', { open: 'dusk' }, 'params.open', /or dawn/);
    rejects('doors.schedule', { close: 'dawn' }, 'params.close', /or dusk/);
  });

  test('move.start stores the default rate of 18 when none is given', () => {
    assert.equal(DEFAULT_MOVE_RATE_M_PER_DAY, 18);
    assert.deepEqual(accepts('move.start', {}), { meters_per_day: 18 });
    assert.deepEqual(accepts('move.start', undefined), { meters_per_day: 18 });
    assert.deepEqual(accepts('move.start', { meters_per_day: 9, heading_deg: 0 }), {
      meters_per_day: 9,
      heading_deg: 0,
    });
  });

  test('move.start checks the rate and heading', () => {
    rejects('move.start', { meters_per_day: 0 }, 'params.meters_per_day', /greater than 0; got 0/);
    rejects('move.start', { meters_per_day: -3 }, 'params.meters_per_day', /greater than 0/);
    rejects('move.start', { meters_per_day: '18' }, 'params.meters_per_day', /must be a number/);
    rejects('move.start', { heading_deg: 360 }, 'params.heading_deg', /less than 360/);
    rejects('move.start', { heading_deg: -1 }, 'params.heading_deg', /at least 0/);
    assert.equal(accepts('move.start', { heading_deg: 359.9 }).heading_deg, 359.9);
  });

  test('move.to_paddock needs a non-empty paddock_id', () => {
    assert.deepEqual(accepts('move.to_paddock', { paddock_id: 'pad_1' }), { paddock_id: 'pad_1' });
    rejects('move.to_paddock', {}, 'params.paddock_id', /needs paddock_id/);
    rejects('move.to_paddock', { paddock_id: '  ' }, 'params.paddock_id', /non-empty/);
  });

  test('feed.dispense kg must be positive', () => {
    assert.deepEqual(accepts('feed.dispense', { kg: 2.5 }), { kg: 2.5 });
    rejects('feed.dispense', { kg: 0 }, 'params.kg', /greater than 0/);
    rejects('feed.dispense', { kg: Number.NaN }, 'params.kg', /must be a number/);
  });

  test('feed.schedule times are a non-empty list of distinct HH:MM', () => {
    assert.deepEqual(accepts('feed.schedule', { times: ['06:00', '17:30'] }), { times: ['06:00', '17:30'] });
    rejects('feed.schedule', { times: [] }, 'params.times', /non-empty list/);
    rejects('feed.schedule', { times: '06:00' }, 'params.times', /non-empty list/);
    rejects('feed.schedule', { times: ['06:00', '6pm'] }, 'params.times[1]', /HH:MM.*"6pm"/);
    rejects('feed.schedule', { times: ['06:00', '06:00'] }, 'params.times[1]', /06:00 more than once/);
  });

  test('spines.set_height takes mm or mode auto, not both', () => {
    assert.deepEqual(accepts('spines.set_height', { mm: 120 }), { mm: 120 });
    assert.deepEqual(accepts('spines.set_height', { mode: 'auto' }), { mode: 'auto' });
    rejects('spines.set_height', {}, 'params', /at least one of: mm, mode/);
    rejects('spines.set_height', { mm: 120, mode: 'auto' }, 'params.mode', /only one of mm, mode/);
    rejects('spines.set_height', { mode: 'manual' }, 'params.mode', /one of auto/);
    rejects('spines.set_height', { mm: -5 }, 'params.mm', /greater than 0/);
  });

  test('enums match exactly', () => {
    rejects(
      'climate.set_mode',
      { mode: 'Summer' },
      'params.mode',
      /one of auto, summer, winter; got "Summer"/,
    );
    rejects('awnings.set', { position: 'half' }, 'params.position', /open, closed, auto/);
    rejects('lights.set', {}, 'params.mode', /needs mode/);
    assert.deepEqual(accepts('lights.set', { mode: 'off' }), { mode: 'off' });
  });

  test('climate.set_target temp_c within 0-45', () => {
    assert.deepEqual(accepts('climate.set_target', { temp_c: 45 }), { temp_c: 45 });
    rejects('climate.set_target', { temp_c: 46 }, 'params.temp_c', /at most 45/);
    rejects('climate.set_target', { temp_c: -1 }, 'params.temp_c', /at least 0/);
  });

  test('fans.set needs tunnel or ridge', () => {
    assert.deepEqual(accepts('fans.set', { ridge: 'on' }), { ridge: 'on' });
    rejects('fans.set', {}, 'params', /at least one of: tunnel, ridge/);
    rejects('fans.set', { tunnel: 'fast' }, 'params.tunnel', /on, off, auto/);
  });

  test('heaters.set needs mode; panels are distinct 1-6', () => {
    assert.deepEqual(accepts('heaters.set', { mode: 'on' }), { mode: 'on' });
    assert.deepEqual(accepts('heaters.set', { mode: 'on', panels: [1, 6] }), { mode: 'on', panels: [1, 6] });
    rejects('heaters.set', { panels: [1] }, 'params.mode', /needs mode/);
    rejects('heaters.set', { mode: 'on', panels: [7] }, 'params.panels[0]', /panel numbers .* 1 to 6; got 7/);
    rejects(
      'heaters.set',
      { mode: 'on', panels: [2, 2] },
      'params.panels[1]',
      /panel 2 is listed more than once/,
    );
    rejects('heaters.set', { mode: 'on', panels: 'all' }, 'params.panels', /non-empty list of panel numbers/);
  });

  test('validated params are a copy, so later changes to the input do not leak in', () => {
    const input = { doors: [1, 2] };
    const params = accepts('doors.open', input);
    input.doors.push(3);
    assert.deepEqual(params.doors, [1, 2]);
  });
});

describe('validateDeviceCommand', () => {
  test('uses the house table for houses', () => {
    const result = validateDeviceCommand('house', 'doors.open', { doors: [15] });
    assert.deepEqual(result, {
      ok: false,
      param: 'params.doors[0]',
      message: result.ok ? '' : result.message,
    });
  });

  test('uses the fixed set for trackers and lists it on a miss', () => {
    assert.deepEqual(validateDeviceCommand('tag', 'set_report_interval', { seconds: 600 }), {
      ok: true,
      params: { seconds: 600 },
    });
    const miss = validateDeviceCommand('bolus', 'doors.open', {});
    assert.equal(miss.ok, false);
    assert.match(miss.ok ? '' : miss.message, /Unknown bolus device command.*locate, set_report_interval/);
    const slow = validateDeviceCommand('band', 'set_report_interval', { seconds: 59 });
    assert.equal(slow.ok ? '' : slow.param, 'params.seconds');
    assert.deepEqual(validateDeviceCommand('guardian', 'alarm.sound', {}), {
      ok: true,
      params: { seconds: 30 },
    });
  });

  test('accepts any command with object params for types without a fixed set', () => {
    assert.deepEqual(validateDeviceCommand('weather', 'calibrate', { x: 1 }), { ok: true, params: { x: 1 } });
    assert.deepEqual(validateDeviceCommand('other', 'reboot', undefined), { ok: true, params: {} });
    const bad = validateDeviceCommand('other', 'reboot', [1]);
    assert.equal(bad.ok ? '' : bad.param, 'params');
    const blank = validateDeviceCommand('reader', ' ', {});
    assert.equal(blank.ok ? '' : blank.param, 'command');
  });
});

describe('applyHouseCommandToState', () => {
  test('doors.open opens only the listed doors and leaves the input untouched', () => {
    const before = defaultHouseState();
    const after = applyHouseCommandToState(before, 'doors.open', { doors: [2, 14] });
    assert.equal(after.doors['2'], 'open');
    assert.equal(after.doors['14'], 'open');
    assert.equal(after.doors['1'], 'closed');
    assert.equal(before.doors['2'], 'closed');
  });

  test('doors.close all closes every door', () => {
    const open = applyHouseCommandToState(defaultHouseState(), 'doors.open', { doors: 'all' });
    assert.ok(Object.values(open.doors).every((d) => d === 'open'));
    const closed = applyHouseCommandToState(open, 'doors.close', { doors: 'all' });
    assert.ok(Object.values(closed.doors).every((d) => d === 'closed'));
  });

  test('doors.schedule changes only the times given', () => {
    const s = applyHouseCommandToState(defaultHouseState(), 'doors.schedule', { close: '20:15' });
    assert.deepEqual(s.door_schedule, { open: 'dawn', close: '20:15' });
  });

  test('move.start, move.to_paddock and move.stop', () => {
    const started = applyHouseCommandToState(
      defaultHouseState(),
      'move.start',
      accepts('move.start', { heading_deg: 90 }),
    );
    assert.deepEqual(started.move, {
      status: 'stepping',
      meters_per_day: 18,
      heading_deg: 90,
      target_paddock_id: null,
    });
    const routed = applyHouseCommandToState(started, 'move.to_paddock', { paddock_id: 'pad_9' });
    assert.equal(routed.move.status, 'stepping');
    assert.equal(routed.move.target_paddock_id, 'pad_9');
    assert.equal(routed.move.heading_deg, null);
    const stopped = applyHouseCommandToState(routed, 'move.stop', {});
    assert.equal(stopped.move.status, 'stopped');
    assert.equal(stopped.move.target_paddock_id, null);
  });

  test('heaters.set on listed panels makes the shared mode mixed; all panels make it uniform', () => {
    const some = applyHouseCommandToState(defaultHouseState(), 'heaters.set', { mode: 'on', panels: [1, 3] });
    assert.equal(some.heaters.panels['1'], 'on');
    assert.equal(some.heaters.panels['2'], 'auto');
    assert.equal(some.heaters.mode, 'mixed');
    const all = applyHouseCommandToState(some, 'heaters.set', { mode: 'off' });
    assert.equal(all.heaters.mode, 'off');
    assert.ok(Object.values(all.heaters.panels).every((p) => p === 'off'));
  });

  test('feed, spines, climate, fans, floor and lights', () => {
    let s = defaultHouseState();
    s = applyHouseCommandToState(s, 'feed.schedule', { times: ['17:00', '06:00'] });
    s = applyHouseCommandToState(s, 'feed.dispense', { kg: 4 });
    s = applyHouseCommandToState(s, 'spines.set_height', { mm: 150 });
    s = applyHouseCommandToState(s, 'climate.set_target', { temp_c: 24 });
    s = applyHouseCommandToState(s, 'fans.set', { ridge: 'on' });
    s = applyHouseCommandToState(s, 'floor.deploy', {});
    s = applyHouseCommandToState(s, 'lights.set', { mode: 'off' });
    assert.deepEqual(s.feed, { schedule: ['06:00', '17:00'], last_dispensed_kg: 4 });
    assert.deepEqual(s.spines, { height_mm: 150, mode: 'manual' });
    assert.equal(s.climate.target_temp_c, 24);
    assert.deepEqual(s.fans, { tunnel: 'auto', ridge: 'on' });
    assert.equal(s.floor, 'deployed');
    assert.equal(s.lights, 'off');
    s = applyHouseCommandToState(s, 'spines.set_height', { mode: 'auto' });
    assert.deepEqual(s.spines, { height_mm: 150, mode: 'auto' });
  });

  test('throws on an unknown command, which only a skipped validation can cause', () => {
    assert.throws(
      () => applyHouseCommandToState(defaultHouseState(), 'doors.toggle', {}),
      /unknown house command/,
    );
  });
});

describe('catalog', () => {
  test('is plain JSON with every command, rule, metric and webhook event', () => {
    const catalog = buildCatalog();
    assert.deepEqual(JSON.parse(JSON.stringify(catalog)), catalog);
    assert.equal(catalog.version, '2026-10-18');
    assert.equal(catalog.metrics.length, 21);
    // The spec's seven threshold rules, then water.leak, device.quiet, group.intake_drop and device.clock.
    assert.deepEqual(
      catalog.rules.map((r) => r.kind),
      [...Array(7).fill('threshold'), 'rate', 'silence', 'rollup', 'clock'],
    );
    assert.equal(catalog.commands.house?.length, 17);
    assert.deepEqual(
      catalog.commands.tag?.map((c) => c.name),
      ['locate', 'set_report_interval'],
    );
    assert.equal(catalog.webhook_events.length, 14);
    assert.deepEqual(
      catalog.device_alarm_events.map((e) => [e.type, e.severity]),
      [
        ['predator.detected', 'urgent'],
        ['safety_edge.stop', 'urgent'],
        ['door.jammed', 'watch'],
      ],
    );
    assert.equal(catalog.device_types.find((t) => t.type === 'weather')?.commands, null);
  });
});
