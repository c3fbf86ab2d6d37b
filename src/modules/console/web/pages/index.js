/**
 * Each console page's module, loaded when the page is first opened (a page's code is not part of the first
 * load of another). The names are CONSOLE_PAGES' `page` values (src/modules/console/pages.ts).
 */
export const PAGE_MODULES = {
  brief: () => import('./brief.js'),
  alerts: () => import('./alerts.js'),
  houses: () => import('./houses.js'),
  people: () => import('./people.js'),
  'sign-in': () => import('./sign-in.js'),
  setup: () => import('./setup.js'),
};
