/**
 * The route table: every route the app serves (method and URL pattern) with the key it takes (`auth`) and
 * the access it declares (`access`, set by `withAccess` in permissions.ts), gathered as routes are added.
 * It answers which methods a path takes (a known path called with another method is 405 with `Allow`,
 * not 404), where the routes declare secrets (`secretPaths`, for the request log), it is the list the fuzz
 * and role tests walk, and at start-up it refuses a route that takes a key but declares no access: a module
 * registered without withAccess would otherwise be callable by restricted keys unchecked.
 */
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { AuthKind } from './auth.ts';
import { SecretPaths } from './logging.ts';
import type { RouteAccess } from './permissions.ts';

export interface RouteEntry {
  method: string;
  /** Fastify's pattern, e.g. `/v1/farms/:farm/animals`. */
  url: string;
  /** Which key the route takes (`config.auth`; `api` unless the route says otherwise). */
  auth: AuthKind;
  /** What a key needs to call it; undefined for `auth: 'none'` routes (and, refused at start-up, a bare route). */
  access: RouteAccess | undefined;
  /** Path and query parameters that carry a secret, kept out of the log (`config.secrets`, http/logging.ts). */
  secrets: readonly string[];
  schema: FastifySchema | undefined;
}

/**
 * Routes that plugins add themselves (`METHOD url`), with the key they take: the CORS plugin's preflight
 * answers from its own hook and needs no key.
 */
const PLUGIN_ROUTES: Record<string, AuthKind> = { 'OPTIONS *': 'none' };

function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

export class RouteTable {
  /** The routes as registered: their config (auth, access) is read when asked, after every hook has run. */
  private readonly registered: { method: string; route: RouteOptions }[] = [];
  private readonly patterns = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  /** Where the routes declare secrets, for the request log: built when first asked, again after an add. */
  private secrets: SecretPaths | null = null;

  add(route: RouteOptions): void {
    this.secrets = null;
    for (const method of [route.method].flat()) {
      this.registered.push({ method, route });
      let entry = this.patterns.get(route.url);
      if (!entry) {
        entry = { pattern: patternOf(route.url), methods: new Set() };
        this.patterns.set(route.url, entry);
      }
      entry.methods.add(method);
    }
  }

  /** Every route, one entry per method. */
  get routes(): RouteEntry[] {
    return this.registered.map(({ method, route }) => ({
      method,
      url: route.url,
      auth: route.config?.auth ?? 'api',
      access: route.config?.access,
      secrets: route.config?.secrets ?? [],
      schema: route.schema,
    }));
  }

  /**
   * Every route's secret path and query parameters (`config.secrets`), as the request log hides them on any
   * path, one no route matched included (http/logging.ts).
   */
  secretPaths(): SecretPaths {
    this.secrets ??= new SecretPaths(this.routes);
    return this.secrets;
  }

  /** Routes that take a key but declare no access (none, once the app has started). */
  undeclared(): RouteEntry[] {
    return this.routes.filter((r) => r.auth !== 'none' && r.access === undefined);
  }

  /** The methods some route takes at this concrete path (empty when no route has the path). */
  methodsFor(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: own } of this.patterns.values()) {
      if (pattern.test(path)) for (const m of own) methods.add(m);
    }
    return [...methods].sort();
  }
}

/**
 * A route table filled by onRoute (register it before any route), and the start-up check (onReady) that
 * every route taking a key declares its access.
 */
export function trackRoutes(app: FastifyInstance): RouteTable {
  const table = new RouteTable();
  app.addHook('onRoute', (route) => {
    const pluginAuth = [route.method]
      .flat()
      .map((m) => PLUGIN_ROUTES[`${m} ${route.url}`])
      .find(Boolean);
    if (pluginAuth) route.config = { ...route.config, auth: pluginAuth };
    table.add(route);
  });
  app.addHook('onReady', async () => {
    const bare = table.undeclared()[0];
    if (bare) throw new Error(`route ${bare.method} ${bare.url} takes a key but declares no access`);
  });
  return table;
}
