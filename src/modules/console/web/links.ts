/**
 * Where a thing is shown in the console: the link for a brief item, an alert's subject, a house. A link is
 * given only when its page exists (CONSOLE_PAGES), so adding a page (tasks, devices…) makes the links appear.
 */
import type { Schema } from './api.ts';
import { hasPage } from './router.ts';

function link(path: string, id: string): string | null {
  return hasPage(path) ? `${path}#${encodeURIComponent(id)}` : null;
}

/** The page showing an alert. */
export function alertLink(alertId: string): string | null {
  return hasPage('/alerts') ? `/alerts?status=all#${encodeURIComponent(alertId)}` : null;
}

/** The page showing a subject (`device`, `animal`, `paddock`, …) by id; houses are devices too. */
export function subjectLink(
  type: string | null | undefined,
  id: string | null | undefined,
  { house = false } = {},
): string | null {
  if (!type || !id) return null;
  if (type === 'device') return house ? link('/houses', id) : link('/devices', id);
  return link(`/${type}s`, id);
}

/** The page showing a brief item: its alert, its task, or its subject. */
export function briefItemLink(item: Schema<'Brief'>['items'][number], houseIds: Set<string>): string | null {
  if (item.kind === 'alert' && item.ref_id) return alertLink(item.ref_id);
  if (item.kind.startsWith('task_') && item.ref_id) return link('/tasks', item.ref_id);
  return subjectLink(item.subject_type, item.subject_id, {
    house: item.subject_id !== null && houseIds.has(item.subject_id),
  });
}
