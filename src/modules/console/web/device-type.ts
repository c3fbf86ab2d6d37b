/**
 * A device's type in the reader's words ("house", "gallinero"): shared by the devices, device, map, data and
 * rule pages, so none of them loads another page's module for it.
 */
import { type MessageKey, t } from './i18n.ts';
import { EN } from './messages/en.ts';

export function typeName(type: string): string {
  const key = `device_type.${type}`;
  return key in EN ? t(key as MessageKey) : type;
}
