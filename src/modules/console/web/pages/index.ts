/**
 * Each console page's module, loaded when the page is first opened (a page's code is not part of the first
 * load of another). The names are CONSOLE_PAGES' `page` values (src/modules/console/pages.ts).
 */
import type { Schema } from '../api.ts';

/** What every page is given: the chosen farm (absent on public pages) and the path's parameters. */
export interface PageProps {
  farm: Schema<'Farm'>;
  params: Record<string, string>;
}

export interface PageModule {
  Page(props: PageProps): unknown;
}

export const PAGE_MODULES = {
  brief: () => import('./brief.ts'),
  alerts: () => import('./alerts.ts'),
  houses: () => import('./houses.ts'),
  animals: () => import('./animals.ts'),
  animal: () => import('./animal.ts'),
  groups: () => import('./groups.ts'),
  paddocks: () => import('./paddocks.ts'),
  tasks: () => import('./tasks.ts'),
  events: () => import('./events.ts'),
  devices: () => import('./devices.ts'),
  device: () => import('./device.ts'),
  data: () => import('./data.ts'),
  settings: () => import('./settings.ts'),
  people: () => import('./people.ts'),
  account: () => import('./account.ts'),
  connect: () => import('./connect.ts'),
  'sign-in': () => import('./sign-in.ts'),
  setup: () => import('./setup.ts'),
} satisfies Record<string, () => Promise<PageModule>>;

export type PageName = keyof typeof PAGE_MODULES;
