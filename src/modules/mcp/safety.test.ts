import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isOriginAllowed, ownOrigin } from './origin.ts';
import { confirmationNeeded } from './safety.ts';

const FARM = { name: 'Willow Creek', timezone: 'America/Chicago', lat: 38.9517, lon: -92.3341 };
const NOON = Date.UTC(2024, 8, 1, 17, 0); // 12:00 CDT
const NIGHT = Date.UTC(2024, 8, 2, 3, 0); // 22:00 CDT

describe('house_command confirm rule', () => {
  test('moving a house always needs the farmer’s confirmation', () => {
    for (const command of ['move.start', 'move.to_paddock']) {
      for (const at of [NOON, NIGHT]) {
        const reason = confirmationNeeded(command, 'House 1', FARM, at);
        assert.ok(reason, `${command} at ${new Date(at).toISOString()}`);
        assert.match(reason, /Ask the farmer/);
        assert.match(reason, /confirm: true/);
      }
    }
  });

  test('opening doors needs confirmation after dark only', () => {
    assert.equal(confirmationNeeded('doors.open', 'House 1', FARM, NOON), null);
    const reason = confirmationNeeded('doors.open', 'House 1', FARM, NIGHT);
    assert.ok(reason);
    assert.match(reason, /dark at Willow Creek/);
    assert.match(reason, /sunset was at 19:3\d/);
    assert.match(reason, /sunrise is at 06:[34]\d/);
    assert.match(reason, /America\/Chicago/);
    assert.match(reason, /confirm: true/);
  });

  test('a farm without coordinates always asks before opening doors', () => {
    const reason = confirmationNeeded('doors.open', 'House 1', { ...FARM, lat: null, lon: null }, NOON);
    assert.ok(reason);
    assert.match(reason, /no coordinates/);
  });

  test('other commands never need confirmation', () => {
    for (const command of ['doors.close', 'move.stop', 'feed.dispense', 'lights.set']) {
      assert.equal(confirmationNeeded(command, 'House 1', FARM, NIGHT), null, command);
    }
  });
});

describe('MCP Origin check', () => {
  const own = ownOrigin('http', '127.0.0.1:8080');
  test('no Origin (a non-browser client) and the server’s own origin pass', () => {
    assert.equal(own, 'http://127.0.0.1:8080');
    assert.equal(isOriginAllowed(undefined, own, []), true);
    assert.equal(isOriginAllowed('http://127.0.0.1:8080', own, []), true);
  });

  test('another site, the opaque null origin and junk are refused unless allow-listed', () => {
    assert.equal(isOriginAllowed('https://evil.example', own, []), false);
    assert.equal(isOriginAllowed('http://127.0.0.1:9999', own, []), false, 'another port is another origin');
    assert.equal(isOriginAllowed('null', own, []), false);
    assert.equal(isOriginAllowed('not a url', own, []), false);
    assert.equal(isOriginAllowed('https://farm.example', own, ['https://farm.example']), true);
    assert.equal(isOriginAllowed('https://farm.example:443', own, ['https://farm.example']), true);
  });
});
