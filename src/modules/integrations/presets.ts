/**
 * Presets for common farm sensors: the decoded field names their vendors' published decoders produce (The
 * Things Network's device repository, github.com/TheThingsNetwork/lorawan-devices, each vendor's
 * `*-codec.yaml` examples and decoder), what Farmstead makes of each field, and for devices that take
 * commands the downlinks that carry them. docs/guide/lorawan.md cites each source file.
 *
 * Batteries reported in volts (Dragino's lithium thionyl chloride cells) become a percentage by a straight
 * line from 3.0 V (0 %) to 3.6 V (100 %): scale 500/3 (166.67), offset -500, clamped to 0–100. Distances become a
 * level by the tank's or trough's depth: the presets assume the sensor sits at the brim of a 2 m tank or a
 * 0.5 m trough; change scale and offset to your own depth (level % = 100 − distance mm × 100 / depth mm).
 */
import type { DeviceType } from '../../domain/devices.ts';
import type { Mapping } from './mapping.ts';

/** How one command becomes a downlink: a port, and a hex payload or an object for the server's codec. */
export interface EncoderEntry {
  f_port: number;
  /** Confirmed downlinks go `done` on the device's ack; unconfirmed ones on the gateway's transmission. */
  confirmed?: boolean;
  /** Hex with parameters: `{seconds:u24}` (big-endian unsigned: u8, u16, u24, u32) or `{position}` (from `values`). */
  hex?: string;
  /** An object for the device profile's downlink encoder; a string "{name}" is the parameter's value. */
  object?: Record<string, unknown>;
  /** For `{name}` in `hex`: the hex of each parameter value. */
  values?: Record<string, Record<string, string>>;
}

export type Encoder = Record<string, EncoderEntry>;

export interface Preset {
  name: string;
  title: string;
  /** The Farmstead device type the sensor is adopted as. */
  device_type: DeviceType;
  /** Where the field names come from. */
  source: string;
  mapping: Mapping;
  encoder: Encoder;
}

const VOLTS_TO_PERCENT = { set: 'battery', scale: 500 / 3, offset: -500 } as const;
/** Dragino's "TDC" downlink: 0x01 then the reporting interval in seconds, three bytes. */
const DRAGINO_INTERVAL: EncoderEntry = { f_port: 2, confirmed: false, hex: '01{seconds:u24}' };

const REPO = 'TheThingsNetwork/lorawan-devices';

export const PRESETS: readonly Preset[] = Object.freeze<Preset[]>([
  {
    name: 'milesight-em500-udl',
    title: 'Milesight EM500-UDL ultrasonic level sensor (tank)',
    device_type: 'water',
    source: `${REPO} vendor/milesight-iot/em500-udl-codec.yaml (battery %, distance mm)`,
    mapping: {
      distance: { metric: 'water.tank_pct', scale: -0.05, offset: 100 },
      battery: { set: 'battery' },
    },
    encoder: {},
  },
  {
    name: 'dragino-ldds75',
    title: 'Dragino LDDS75 ultrasonic distance sensor (trough)',
    device_type: 'water',
    source: `${REPO} vendor/dragino/ldds75-codec.yaml and ldds75.js (distance mm)`,
    mapping: {
      distance: { metric: 'water.tank_pct', scale: -0.2, offset: 100 },
      value: { ignore: true },
    },
    // A water device takes valve.set only (src/domain/devices.ts), so no reporting-interval downlink here.
    encoder: {},
  },
  {
    name: 'milesight-em300-th',
    title: 'Milesight EM300-TH temperature and humidity sensor',
    device_type: 'other',
    source: `${REPO} vendor/milesight-iot/em300-th-codec.yaml (temperature °C, humidity %, battery %)`,
    mapping: {
      temperature: { metric: 'climate.temp_c' },
      humidity: { metric: 'climate.humidity_pct' },
      battery: { set: 'battery' },
    },
    encoder: {},
  },
  {
    name: 'dragino-lse01',
    title: 'Dragino LSE01 soil moisture, temperature and conductivity sensor',
    device_type: 'other',
    source: `${REPO} vendor/dragino/lse01-codec.yaml (water_SOIL %, temp_SOIL °C, conduct_SOIL µS/cm, Bat V)`,
    mapping: {
      water_SOIL: { metric: 'soil.moisture_pct' },
      temp_SOIL: { metric: 'soil.temp_c' },
      conduct_SOIL: { metric: 'soil.ec_us_cm' },
      TempC_DS18B20: { metric: 'soil.probe_temp_c' },
      Bat: VOLTS_TO_PERCENT,
    },
    encoder: { set_report_interval: DRAGINO_INTERVAL },
  },
  {
    name: 'dragino-wsc1-l',
    title: 'Dragino WSC1-L weather station',
    device_type: 'weather',
    source: `${REPO} vendor/dragino/wsc1-l.js (TEM °C, HUM %, wind_speed m/s, rain_gauge mm, pressure hPa, bat V)`,
    mapping: {
      TEM: { metric: 'climate.temp_c' },
      HUM: { metric: 'climate.humidity_pct' },
      wind_speed: { metric: 'wind.kph', scale: 3.6 },
      rain_gauge: { metric: 'rain.mm' },
      pressure: { metric: 'climate.pressure_hpa' },
      bat: VOLTS_TO_PERCENT,
    },
    encoder: { set_report_interval: DRAGINO_INTERVAL },
  },
  {
    name: 'dragino-lgt92',
    title: 'Dragino LGT-92 GPS tracker',
    device_type: 'tag',
    source: `${REPO} vendor/dragino/lgt92-codec.yaml (latitude, longitude, BatV, ALARM_status)`,
    mapping: {
      latitude: { set: 'lat' },
      longitude: { set: 'lon' },
      BatV: VOLTS_TO_PERCENT,
      ALARM_status: { event: 'tracker.alarm', when: 'TRUE' },
      Roll: { ignore: true },
      Pitch: { ignore: true },
      FW: { ignore: true },
      hdop: { ignore: true },
    },
    encoder: { set_report_interval: DRAGINO_INTERVAL },
  },
  {
    name: 'dragino-lt22222-l',
    title: 'Dragino LT-22222-L I/O controller driving a water valve on relay 1',
    device_type: 'water',
    source: `${REPO} vendor/dragino/lt22222-l-codec.yaml (ACI1_mA, ACI2_mA, AVI1_V, AVI2_V, RO1_status)`,
    mapping: {},
    encoder: {
      // 0x03 then relay 1 and relay 2: 01 closes (powers the valve open), 00 opens, 11 leaves it.
      'valve.set': {
        f_port: 2,
        confirmed: true,
        hex: '03{position}11',
        values: { position: { open: '01', closed: '00' } },
      },
    },
  },
]);

export const PRESET_BY_NAME: ReadonlyMap<string, Preset> = new Map(PRESETS.map((p) => [p.name, p]));
