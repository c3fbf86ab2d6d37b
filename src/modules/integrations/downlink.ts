/**
 * How a command becomes a downlink: the device's encoder entry for the command (a port, and a hex payload
 * with its parameters put in, or an object for the device profile's codec); the network server's adapter
 * (network-servers.ts) wraps it in its own request. Pure functions: no database, no network.
 */
import type { Encoder, EncoderEntry } from './presets.ts';

export interface EncodedDownlink {
  fPort: number;
  confirmed: boolean;
  /** base64 of the bytes, when the entry gives hex. */
  data?: string;
  object?: Record<string, unknown>;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)(?::(u8|u16|u24|u32))?\}/g;
const WIDTH = { u8: 1, u16: 2, u24: 3, u32: 4 } as const;

/** Why an encoder cannot work (naming the entry), or null. Ajv has checked the shapes already. */
export function encoderProblem(encoder: Encoder, param: string): { param: string; message: string } | null {
  for (const [command, entry] of Object.entries(encoder)) {
    const at = `${param}.${command}`;
    if ((entry.hex === undefined) === (entry.object === undefined)) {
      return { param: at, message: `${at} must give exactly one of hex or object.` };
    }
    if (entry.hex !== undefined) {
      const literal = entry.hex.replace(PLACEHOLDER, '');
      if (!/^([0-9a-fA-F]{2})*$/.test(literal)) {
        return {
          param: `${at}.hex`,
          message: `${at}.hex must be pairs of hex digits with parameters such as {seconds:u24} or {position}.`,
        };
      }
      for (const match of entry.hex.matchAll(PLACEHOLDER)) {
        const [, name, width] = match;
        if (!width && !entry.values?.[name as string]) {
          return {
            param: `${at}.values`,
            message: `${at}.hex uses {${name}} without a width, so values.${name} must give the hex of each value.`,
          };
        }
      }
    }
  }
  return null;
}

function encodeUnsigned(value: unknown, width: keyof typeof WIDTH, name: string): string {
  const bytes = WIDTH[width];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= 2 ** (8 * bytes)) {
    throw new EncodeError(
      `params.${name} must be a whole number from 0 to ${2 ** (8 * bytes) - 1} to fit ${width}.`,
    );
  }
  return value.toString(16).padStart(bytes * 2, '0');
}

export class EncodeError extends Error {}

function fillHex(entry: EncoderEntry & { hex: string }, params: Record<string, unknown>): string {
  return entry.hex.replace(PLACEHOLDER, (_all, name: string, width?: keyof typeof WIDTH) => {
    const value = params[name];
    if (width) return encodeUnsigned(value, width, name);
    const hex = entry.values?.[name]?.[String(value)];
    if (hex === undefined) {
      const known = Object.keys(entry.values?.[name] ?? {}).join(', ');
      throw new EncodeError(`params.${name} "${String(value)}" has no downlink value; known: ${known}.`);
    }
    return hex;
  });
}

function fillObject(template: unknown, params: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const whole = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(template);
    return whole ? params[whole[1] as string] : template;
  }
  if (Array.isArray(template)) return template.map((t) => fillObject(t, params));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillObject(v, params)]));
  }
  return template;
}

/** The downlink of a command, or an EncodeError saying why there is none. */
export function encodeCommand(
  encoder: Encoder,
  command: string,
  params: Record<string, unknown>,
): EncodedDownlink {
  const entry = encoder[command];
  if (!entry) {
    const known = Object.keys(encoder);
    throw new EncodeError(
      `The device's encoder has no downlink for ${command}${known.length > 0 ? `; it has ${known.join(', ')}` : ''}. Add one (PUT /v1/devices/{id}/lorawan) or choose a preset that has it.`,
    );
  }
  const confirmed = entry.confirmed ?? true;
  if (entry.hex !== undefined) {
    const hex = fillHex(entry as EncoderEntry & { hex: string }, params);
    return { fPort: entry.f_port, confirmed, data: Buffer.from(hex, 'hex').toString('base64') };
  }
  return {
    fPort: entry.f_port,
    confirmed,
    object: fillObject(entry.object ?? {}, params) as Record<string, unknown>,
  };
}
