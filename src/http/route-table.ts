/**
 * Every route the app serves (method and URL pattern), gathered as routes are added. It answers which
 * methods a path takes, so a known path called with another method is 405 with `Allow` rather than
 * 404, and it is the list the fuzz test walks, so a new route is covered without editing the test.
 */
import type { FastifyInstance, FastifySchema } from 'fastify';

export interface RouteEntry {
  method: string;
  /** Fastify's pattern, e.g. `/v1/farms/:farm/animals`. */
  url: string;
  /** Which key the route takes (`config.auth`; `api` unless the route says otherwise). */
  auth: string;
  schema: FastifySchema | undefined;
}

function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

export class RouteTable {
  readonly routes: RouteEntry[] = [];
  private readonly patterns = new Map<string, { pattern: RegExp; methods: Set<string> }>();

  add(route: RouteEntry): void {
    const { method, url } = route;
    this.routes.push(route);
    let entry = this.patterns.get(url);
    if (!entry) {
      entry = { pattern: patternOf(url), methods: new Set() };
      this.patterns.set(url, entry);
    }
    entry.methods.add(method);
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

/** A route table filled by onRoute; register it before any route. */
export function trackRoutes(app: FastifyInstance): RouteTable {
  const table = new RouteTable();
  app.addHook('onRoute', (route) => {
    const auth = String((route.config as { auth?: string } | undefined)?.auth ?? 'api');
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      table.add({ method, url: route.url, auth, schema: route.schema });
    }
  });
  return table;
}
