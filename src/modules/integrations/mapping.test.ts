/**
 * Mapping, presets and downlink encoding as pure functions. Each preset is applied to the decoded output its
 * vendor's codec documents (TheThingsNetwork/lorawan-devices, the `*-codec.yaml` examples; the WSC1-L and
 * LDDS75 fields from their decoders), so a preset naming a field its decoder does not produce fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chirpstack } from './chirpstack.ts';
import { encodeCommand, encoderProblem } from './downlink.ts';
import { effectiveSettings, namePatternMatches } from './effective.ts';
import { applyMapping, mappingProblem } from './mapping.ts';
import { PRESET_BY_NAME, PRESETS } from './presets.ts';
import { theThingsStack } from './ttn.ts';

const NO_LINK = { rssi: null, snr: null };

/** Each preset's documented decoder output. */
const CODEC_EXAMPLES: Record<string, Record<string, unknown>> = {
  'milesight-em500-udl': { battery: 92, distance: 30 },
  'dragino-ldds75': { distance: 1234, value: 0 },
  'milesight-em300-th': { battery: 50, temperature: 20.0, humidity: 30.0 },
  'dragino-lse01': {
    Bat: 3.625,
    TempC_DS18B20: '24.1',
    conduct_SOIL: 28200,
    temp_SOIL: '24.59',
    water_SOIL: '19.57',
  },
  'dragino-wsc1-l': { bat: 3.3, wind_speed: 2.5, TEM: 18.4, HUM: 61, pressure: 1013.2, rain_gauge: 0.2 },
  'dragino-lgt92': {
    ALARM_status: 'FALSE',
    altitude: 0,
    BatV: 3.36,
    FW: 160,
    LON: 'ON',
    latitude: 22.70626,
    longitude: 114.24252,
    MD: 'Disable',
    Pitch: 4,
    Roll: 0.75,
    hdop: 0,
  },
  'dragino-lt22222-l': { ACI1_mA: 4.88, ACI2_mA: 4.864, AVI1_V: 1.195, AVI2_V: 1.196, RO1_status: 'ON' },
};

test('every preset is valid and maps every field it names from its codec example', () => {
  assert.ok(PRESETS.length >= 6);
  for (const preset of PRESETS) {
    assert.equal(mappingProblem(preset.mapping, 'mapping'), null, preset.name);
    assert.equal(encoderProblem(preset.encoder, 'encoder'), null, preset.name);
    const example = CODEC_EXAMPLES[preset.name];
    assert.ok(example, `${preset.name} has a codec example here`);
    for (const path of Object.keys(preset.mapping)) assert.ok(path in example, `${preset.name}: ${path}`);
  }
});

test('presets turn their codec examples into Farmstead metrics, battery and position', () => {
  const map = (name: string) => {
    const preset = PRESET_BY_NAME.get(name);
    assert.ok(preset);
    return applyMapping(CODEC_EXAMPLES[name], preset.mapping, NO_LINK);
  };
  assert.deepEqual(map('milesight-em500-udl'), {
    readings: [{ metric: 'water.tank_pct', value: 98.5 }],
    battery: 92,
    events: [],
  });
  assert.deepEqual(map('milesight-em300-th').readings, [
    { metric: 'climate.temp_c', value: 20 },
    { metric: 'climate.humidity_pct', value: 30 },
  ]);
  const soil = map('dragino-lse01');
  assert.deepEqual(soil.readings, [
    { metric: 'soil.moisture_pct', value: 19.57 },
    { metric: 'soil.temp_c', value: 24.59 },
    { metric: 'soil.ec_us_cm', value: 28200 },
    { metric: 'soil.probe_temp_c', value: 24.1 },
  ]);
  assert.equal(soil.battery, 100);
  const weather = map('dragino-wsc1-l');
  assert.deepEqual(
    weather.readings.find((r) => r.metric === 'wind.kph'),
    { metric: 'wind.kph', value: 9 },
  );
  assert.equal(weather.battery, 50);
  const gps = map('dragino-lgt92');
  assert.equal(gps.lat, 22.70626);
  assert.equal(gps.lon, 114.24252);
  assert.equal(gps.battery, 60);
  assert.deepEqual(gps.events, []);
  assert.deepEqual(gps.readings, [{ metric: 'lorawan.altitude', value: 0 }]);
  // The I/O controller maps nothing: its numeric fields are kept as lorawan.*.
  assert.deepEqual(
    map('dragino-lt22222-l').readings.map((r) => r.metric),
    ['lorawan.ACI1_mA', 'lorawan.ACI2_mA', 'lorawan.AVI1_V', 'lorawan.AVI2_V'],
  );
});

test('a tracker without a fix (0, 0) sets no position; events fire on set values or `when`', () => {
  const out = applyMapping(
    { lat: 0, lon: 0, motion: 1, door: 'closed', alarm: 'FALSE' },
    {
      lat: { set: 'lat' },
      lon: { set: 'lon' },
      motion: { event: 'predator.detected' },
      door: { event: 'door.jammed', when: 'jammed' },
      alarm: { event: 'tracker.alarm' },
    },
    { rssi: -90, snr: 2 },
  );
  assert.equal(out.lat, undefined);
  assert.deepEqual(
    out.events.map((e) => e.type),
    ['predator.detected'],
  );
  assert.deepEqual(out.readings, [
    { metric: 'lorawan.rssi', value: -90 },
    { metric: 'lorawan.snr', value: 2 },
  ]);
});

test('a field no reading may hold (beyond ±1e15, below absolute zero, 400 digits) is left out, the rest kept', () => {
  const out = applyMapping(
    {
      temperature: 1e300,
      humidity: `1${'0'.repeat(400)}`,
      cold: -500,
      weight: 350,
      huge: 1e20,
      battery: 1e300,
    },
    {
      temperature: { metric: 'climate.temp_c' },
      humidity: { metric: 'climate.humidity_pct' },
      cold: { metric: 'climate.temp_c' },
      weight: { metric: 'weight.kg' },
      battery: { set: 'battery', scale: 1e10 },
    },
    { rssi: -90, snr: null },
  );
  assert.deepEqual(out.readings, [
    { metric: 'weight.kg', value: 350 },
    { metric: 'lorawan.rssi', value: -90 },
  ]);
  assert.equal(out.battery, undefined, 'a battery that overflowed is no battery');
});

test('an unmapped field under a key with a blank or padded part makes no metric', () => {
  const out = applyMapping(
    { ' ': 1, '': 2, '.': 3, ' x': 4, 'a.': 5, 'temp.c': 6, ok: { depth: 7 } },
    {},
    { rssi: null, snr: null },
  );
  assert.deepEqual(out.readings, [
    { metric: 'lorawan.temp.c', value: 6 },
    { metric: 'lorawan.ok.depth', value: 7 },
  ]);
});

test('downlinks: hex with numbers and value tables, objects with parameters, and clear refusals', () => {
  const valve = PRESET_BY_NAME.get('dragino-lt22222-l')?.encoder ?? {};
  assert.deepEqual(encodeCommand(valve, 'valve.set', { position: 'closed' }), {
    fPort: 2,
    confirmed: true,
    data: Buffer.from('030011', 'hex').toString('base64'),
  });
  const tracker = PRESET_BY_NAME.get('dragino-lgt92')?.encoder ?? {};
  assert.equal(
    Buffer.from(
      encodeCommand(tracker, 'set_report_interval', { seconds: 86400 }).data ?? '',
      'base64',
    ).toString('hex'),
    '01015180',
  );
  assert.deepEqual(
    encodeCommand({ x: { f_port: 3, object: { on: '{state}', n: ['{n}'] } } }, 'x', { state: true, n: 2 }),
    {
      fPort: 3,
      confirmed: true,
      object: { on: true, n: [2] },
    },
  );
  assert.throws(() => encodeCommand(valve, 'locate', {}), /no downlink for locate; it has valve\.set/);
  assert.throws(
    () => encodeCommand(valve, 'valve.set', { position: 'half' }),
    /"half" has no downlink value/,
  );
  assert.throws(() => encodeCommand({ s: { f_port: 1, hex: '{n:u8}' } }, 's', { n: 300 }), /0 to 255/);
  assert.equal(encoderProblem({ a: { f_port: 1, hex: 'zz' } }, 'encoder')?.param, 'encoder.a.hex');
  assert.equal(encoderProblem({ a: { f_port: 1, hex: '{p}' } }, 'encoder')?.param, 'encoder.a.values');
  assert.equal(encoderProblem({ a: { f_port: 1 } }, 'encoder')?.param, 'encoder.a');
});

test('integration defaults apply by device name pattern and profile, after the device’s own settings', () => {
  const defaults = [
    { device_name: 'tank-*', preset: 'milesight-em500-udl' },
    { profile: 'LSE01', preset: 'dragino-lse01' },
  ];
  assert.equal(namePatternMatches('tank-*', 'Tank-North'), true);
  assert.equal(namePatternMatches('tank-*', 'trough-1'), false);
  assert.equal(
    effectiveSettings(null, defaults, { name: 'tank-7', profile: null }).mapping.distance?.metric,
    'water.tank_pct',
  );
  assert.equal(
    effectiveSettings(null, defaults, { name: 'x', profile: 'LSE01' }).mapping.water_SOIL?.metric,
    'soil.moisture_pct',
  );
  assert.equal(effectiveSettings(null, defaults, { name: 'x', profile: null }).source, 'none');
  const own = { preset: null, mapping: { a: { metric: 'a.b' } }, encoder: null };
  assert.equal(effectiveSettings(own, defaults, { name: 'tank-7', profile: null }).source, 'device');
});

test('network server times keep milliseconds of nanosecond timestamps; TTS uses the best gateway by RSSI', () => {
  const up = chirpstack.parseEvent(
    {
      event: 'up',
      body: {
        deduplicationId: 'd',
        time: '2022-07-18T09:34:15.775023242+00:00',
        deviceInfo: { devEui: 'AABBCCDDEEFF0011' },
      },
    },
    0,
  );
  assert.equal(up.kind === 'uplink' && up.at, Date.parse('2022-07-18T09:34:15.775Z'));
  const tts = theThingsStack.parseEvent(
    {
      event: undefined,
      body: {
        end_device_ids: { dev_eui: '0004A30B001C0530' },
        correlation_ids: ['as:up:X'],
        uplink_message: {
          rx_metadata: [
            { channel_rssi: -120, snr: -5 },
            { rssi: -80, snr: 6 },
          ],
        },
      },
    },
    1_000,
  );
  assert.ok(tts.kind === 'uplink');
  assert.deepEqual(
    [tts.rssi, tts.snr, tts.at, tts.dedupKey, tts.devEui],
    [-80, 6, 1_000, 'up:as:up:X', '0004a30b001c0530'],
  );
});
