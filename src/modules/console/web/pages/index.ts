/**
 * Each console page's module, loaded when the page is first opened (a page's code is not part of the first
 * load of another). The names are CONSOLE_PAGES' `page` values (src/modules/console/pages.ts).
 */
import type { PageModule } from './page.ts';

export type { PageModule, PageProps } from './page.ts';

export const PAGE_MODULES = {
  brief: () => import('./brief.ts'),
  alerts: () => import('./alerts.ts'),
  map: () => import('./map.ts'),
  houses: () => import('./houses.ts'),
  animals: () => import('./animals.ts'),
  animal: () => import('./animal.ts'),
  groups: () => import('./groups.ts'),
  paddocks: () => import('./paddocks.ts'),
  plan: () => import('./plan.ts'),
  tasks: () => import('./tasks.ts'),
  events: () => import('./events.ts'),
  medicines: () => import('./medicines.ts'),
  treat: () => import('./treat.ts'),
  movements: () => import('./movements.ts'),
  chute: () => import('./chute.ts'),
  calving: () => import('./calving.ts'),
  devices: () => import('./devices.ts'),
  device: () => import('./device.ts'),
  data: () => import('./data.ts'),
  settings: () => import('./settings.ts'),
  integrations: () => import('./integrations.ts'),
  people: () => import('./people.ts'),
  account: () => import('./account.ts'),
  sync: () => import('./sync.ts'),
  connect: () => import('./connect.ts'),
  'sign-in': () => import('./sign-in.ts'),
  setup: () => import('./setup.ts'),
  ack: () => import('./ack.ts'),
} satisfies Record<string, () => Promise<PageModule>>;

export type PageName = keyof typeof PAGE_MODULES;
