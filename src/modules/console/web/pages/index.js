/**
 * Each console page's module, loaded when the page is first opened (a page's code is not part of the first
 * load of another). The names are CONSOLE_PAGES' `page` values (src/modules/console/pages.ts).
 */
export const PAGE_MODULES = {
  brief: () => import('./brief.js'),
  alerts: () => import('./alerts.js'),
  houses: () => import('./houses.js'),
  animals: () => import('./animals.js'),
  animal: () => import('./animal.js'),
  groups: () => import('./groups.js'),
  paddocks: () => import('./paddocks.js'),
  tasks: () => import('./tasks.js'),
  events: () => import('./events.js'),
  devices: () => import('./devices.js'),
  device: () => import('./device.js'),
  data: () => import('./data.js'),
  settings: () => import('./settings.js'),
  integrations: () => import('./integrations.js'),
  people: () => import('./people.js'),
  account: () => import('./account.js'),
  'sign-in': () => import('./sign-in.js'),
  setup: () => import('./setup.js'),
};
