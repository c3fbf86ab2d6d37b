/**
 * The names of a farm's records by id (animals by name and tag, devices, groups and paddocks by name), for
 * pages that show records by what people call them (the event log) and for the subject picker.
 */
import { api } from './api.ts';
import type { Names } from './event-sentences.ts';
import { loadAll, loadGroups, loadPaddocks } from './records.ts';
import { useLoad } from './ui.ts';

export async function loadNames(farm: string): Promise<Names> {
  const [animals, devices, groups, paddocks] = await Promise.all([
    loadAll((before) =>
      api('GET', '/v1/farms/{farm}/animals', { path: { farm }, query: { limit: 500, before } }),
    ),
    loadAll((before) =>
      api('GET', '/v1/farms/{farm}/devices', { path: { farm }, query: { limit: 500, before } }),
    ),
    loadGroups(farm),
    loadPaddocks(farm),
  ]);
  return {
    animals: new Map(animals.map((a) => [a.id, { tag: a.tag ?? null, name: a.name ?? null }])),
    devices: new Map(devices.map((d) => [d.id, d.name])),
    groups: new Map(groups.map((g) => [g.id, g.name])),
    paddocks: new Map(paddocks.map((p) => [p.id, p.name])),
  };
}

export function useNames(farm: string) {
  return useLoad(() => loadNames(farm), [farm]);
}
