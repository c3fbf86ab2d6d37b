/**
 * Where a thing is shown in the console: the link for a brief item, an alert's subject, a house. A link is
 * given only when its page exists (CONSOLE_PAGES), so adding a page (tasks, devices…) makes the links appear.
 */
import { hasPage } from './router.js';

function link(path, id) {
  return hasPage(path) ? `${path}#${encodeURIComponent(id)}` : null;
}

/** The page showing an alert. */
export function alertLink(alertId) {
  return hasPage('/alerts') ? `/alerts?status=all#${encodeURIComponent(alertId)}` : null;
}

/** The page showing a subject (`device`, `animal`, `paddock`, …) by id; houses are devices too. */
export function subjectLink(type, id, { house = false } = {}) {
  if (!type || !id) return null;
  if (type === 'device') return house ? link('/houses', id) : (link('/devices', id) ?? null);
  return link(`/${type}s`, id);
}

/** The page showing a brief item: its alert, its task, or its subject. */
export function briefItemLink(item, houseIds) {
  if (item.kind === 'alert' && item.ref_id) return alertLink(item.ref_id);
  if (item.kind.startsWith('task_') && item.ref_id) return link('/tasks', item.ref_id);
  return subjectLink(item.subject_type, item.subject_id, { house: houseIds.has(item.subject_id) });
}
