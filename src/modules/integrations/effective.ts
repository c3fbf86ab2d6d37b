/**
 * Which mapping and encoder apply to a device: its own (its mapping and encoder, else its preset's), else
 * the first integration default whose device-name pattern and profile match, else none (every numeric field
 * is then kept as a lorawan.* reading, and no command has a downlink).
 */
import type { Mapping } from './mapping.ts';
import { type Encoder, PRESET_BY_NAME } from './presets.ts';
import type { IntegrationDefault } from './schemas.ts';

export interface Effective {
  source: 'device' | 'default' | 'none';
  mapping: Mapping;
  encoder: Encoder;
}

export interface OwnSettings {
  preset: string | null;
  mapping: Mapping | null;
  encoder: Encoder | null;
}

/** `*` matches any run of characters; everything else is literal, case-insensitive. */
export function namePatternMatches(pattern: string, name: string): boolean {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 'i').test(name);
}

function fromPreset(preset: string | null | undefined) {
  return preset ? PRESET_BY_NAME.get(preset) : undefined;
}

export function effectiveSettings(
  own: OwnSettings | null,
  defaults: readonly IntegrationDefault[],
  device: { name: string | null; profile: string | null },
): Effective {
  if (own && (own.mapping || own.encoder || own.preset)) {
    const preset = fromPreset(own.preset);
    return {
      source: 'device',
      mapping: own.mapping ?? preset?.mapping ?? {},
      encoder: own.encoder ?? preset?.encoder ?? {},
    };
  }
  for (const d of defaults) {
    if (d.device_name !== undefined && !namePatternMatches(d.device_name, device.name ?? '')) continue;
    if (d.profile !== undefined && d.profile !== device.profile) continue;
    const preset = fromPreset(d.preset);
    return {
      source: 'default',
      mapping: d.mapping ?? preset?.mapping ?? {},
      encoder: d.encoder ?? preset?.encoder ?? {},
    };
  }
  return { source: 'none', mapping: {}, encoder: {} };
}
