/**
 * The console's pages, written once: the server answers each path with the console's HTML shell, and the
 * browser (which imports this file with its types stripped) routes the same paths to the same pages.
 *
 * To add a page: add an entry here, then a module `web/pages/<page>.js` exporting `Page`, and its loader in
 * `web/pages/index.js` (see docs/console.md).
 */
import type { RoleName } from '../../domain/permissions.ts';

export interface ConsolePage {
  /** The URL pattern; `:name` segments are parameters (`/setup/:token`). */
  readonly path: string;
  /** The module name under web/pages/ (without `.js`). */
  readonly page: string;
  /** The page's title (window title and navigation). */
  readonly title: string;
  /** Shown in the navigation. */
  readonly nav?: boolean;
  /** One of the main destinations: a tab of the bottom bar on a phone (the other pages go under More). */
  readonly tab?: boolean;
  /** Open without a session (sign-in and setup); every other page needs one. */
  readonly public?: boolean;
  /** Needs a session but shows alone: no navigation, no farm needed (the consent of an agent). */
  readonly bare?: boolean;
  /** Shown only to these roles (navigation entry and page); the API refuses the others anyway. */
  readonly roles?: readonly RoleName[];
  /** Path parameters that are one-time secrets: kept out of the request log (http/logging.ts). */
  readonly secrets?: readonly string[];
}

export const CONSOLE_PAGES: readonly ConsolePage[] = [
  { path: '/', page: 'brief', title: 'Brief', nav: true, tab: true },
  { path: '/alerts', page: 'alerts', title: 'Alerts', nav: true, tab: true },
  { path: '/map', page: 'map', title: 'Map', nav: true, tab: true },
  { path: '/houses', page: 'houses', title: 'Houses', nav: true },
  { path: '/animals', page: 'animals', title: 'Animals', nav: true, tab: true },
  { path: '/animals/:id', page: 'animal', title: 'Animal' },
  { path: '/groups', page: 'groups', title: 'Groups', nav: true },
  { path: '/paddocks', page: 'paddocks', title: 'Paddocks', nav: true },
  { path: '/plan', page: 'plan', title: 'Grazing plan', nav: true },
  { path: '/tasks', page: 'tasks', title: 'Tasks', nav: true },
  { path: '/events', page: 'events', title: 'Event log', nav: true },
  // The herd book (issue 46): the medicine cabinet, giving a treatment, the holding register.
  { path: '/medicines', page: 'medicines', title: 'Medicine cabinet', nav: true },
  { path: '/treat', page: 'treat', title: 'Give a treatment', nav: true },
  { path: '/movements', page: 'movements', title: 'Holding register', nav: true },
  { path: '/chute', page: 'chute', title: 'Chute', nav: true },
  { path: '/calving', page: 'calving', title: 'Calving calendar', nav: true },
  { path: '/devices', page: 'devices', title: 'Devices', nav: true },
  { path: '/devices/:id', page: 'device', title: 'Device' },
  { path: '/data', page: 'data', title: 'Data', nav: true },
  { path: '/settings', page: 'settings', title: 'Settings', nav: true, roles: ['owner'] },
  { path: '/settings/integrations', page: 'integrations', title: 'Integrations', roles: ['owner'] },
  // Settings' other sections, each at its own address (/settings/rules, /settings/webhooks, …).
  { path: '/settings/:section', page: 'settings', title: 'Settings', roles: ['owner'] },
  { path: '/people', page: 'people', title: 'People', nav: true, roles: ['owner'] },
  { path: '/account', page: 'account', title: 'Your account' },
  // The field app's queue (docs/offline.md): linked from the "Waiting to sync" bar, not the navigation.
  { path: '/sync', page: 'sync', title: 'Waiting to sync' },
  { path: '/connect', page: 'connect', title: 'Connect an agent', bare: true },
  { path: '/sign-in', page: 'sign-in', title: 'Sign in', public: true },
  { path: '/setup/:token', page: 'setup', title: 'Set up your sign-in', public: true, secrets: ['token'] },
  // An emailed acknowledge link: one button (the GET changes nothing; mail scanners follow links).
  { path: '/ack/:token', page: 'ack', title: 'Acknowledge an alert', public: true, secrets: ['token'] },
];
