/**
 * The device types (devices.ts re-exports them with their descriptions and commands). Apart, so a browser
 * page listing devices does not load the command definitions and their checks.
 */
export const DEVICE_TYPES = [
  'house',
  'bolus',
  'tag',
  'band',
  'guardian',
  'water',
  'weather',
  'reader',
  'other',
] as const;

export type DeviceType = (typeof DEVICE_TYPES)[number];
