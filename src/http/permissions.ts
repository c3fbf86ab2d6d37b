/**
 * What each API-key route needs, derived once at registration instead of written on every route: a module
 * is registered through `withAccess(plugin, resource)`, whose onRoute hook (scoped to that module) turns the
 * module's resource and each route's method into permissions (GET is read, DELETE delete, anything else
 * write). ROUTE_OVERRIDES holds the few routes that need more or other than that. The route table
 * (route-table.ts) lists every route with its access and refuses to start when a keyed route has none; the
 * auth hook checks the calling key against `config.access` before the body is even read.
 */
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify';
import { forbidden } from '../domain/errors.ts';
import {
  type Access,
  describePermission,
  describeResourcePermission,
  missingPermission,
  type Permission,
  type Policy,
  permission,
  type Resource,
  type RoleName,
} from '../domain/permissions.ts';
import { errorResponses } from './schemas.ts';

/**
 * A route's access: the permissions it needs, and whether a key restricted to chosen farms may call it
 * (creating a farm would reach beyond the key's farms). `any`: every valid key (e.g. GET /v1/me);
 * `per-tool`: the MCP endpoint, whose tools are checked one by one.
 */
export type RouteAccess = { needs: readonly Permission[]; allFarmsOnly?: boolean } | 'any' | 'per-tool';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/** Routes whose needs differ from their module's resource and method, keyed by `METHOD url`. */
const ROUTE_OVERRIDES: Record<string, RouteAccess> = {
  'POST /v1/farms': { needs: [permission('farms', 'write')], allFarmsOnly: true },
  // The brief ranks alerts, tasks and houses: it shows what those three families hold.
  'GET /v1/farms/:farm/brief': {
    needs: [permission('brief', 'read'), permission('alerts', 'read'), permission('devices', 'read')],
  },
  // The map shows paddocks, devices (their positions and house routes) and alerts.
  'GET /v1/farms/:farm/map': {
    needs: [permission('paddocks', 'read'), permission('devices', 'read'), permission('alerts', 'read')],
  },
  // Resetting the sample farm deletes and re-creates its records, devices and alerts.
  'POST /v1/farms/:farm/reset': {
    needs: [permission('farms', 'delete'), permission('devices', 'delete'), permission('alerts', 'delete')],
  },
};

function accessOfMethod(method: string): Access {
  if (method === 'GET' || method === 'HEAD') return 'read';
  if (method === 'DELETE') return 'delete';
  return 'write';
}

function routeAccess(route: RouteOptions, resource: Resource | 'any' | 'per-tool'): RouteAccess {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const override = methods.map((m) => ROUTE_OVERRIDES[`${m} ${route.url}`]).find((o) => o !== undefined);
  if (override) return override;
  if (resource === 'any' || resource === 'per-tool') return resource;
  // A route answering several methods needs the strongest of them.
  const accesses = methods.map(accessOfMethod);
  const access = accesses.includes('delete') ? 'delete' : accesses.includes('write') ? 'write' : 'read';
  return { needs: [permission(resource, access)] };
}

/** Adds the 403 (a restricted key) and 429 (rate limits) every keyed route may answer to its documented responses. */
function documentRefusals(route: RouteOptions): void {
  const response = route.schema?.response as Record<string, unknown> | undefined;
  const auth = route.config?.auth ?? 'api';
  if (!response || auth === 'none') return;
  const refusals =
    auth === 'api'
      ? errorResponses(
          {
            forbidden:
              'This key lacks a permission this operation needs (a restricted key), the signed-in person’s role does not allow it, or a session-cookie write came without X-CSRF-Token.',
          },
          'rate_limited',
        )
      : errorResponses('rate_limited');
  for (const [status, schema] of Object.entries(refusals)) response[status] ??= schema;
}

/**
 * Registers a module so that each of its routes carries the access its resource and method imply. The
 * hook lives in the module's own encapsulated context, so it sees exactly that module's routes.
 */
export function withAccess<P extends (instance: never, options: never) => Promise<void>>(
  plugin: P,
  resource: Resource | 'any' | 'per-tool',
): P {
  const wrapped = async (instance: FastifyInstance, options: unknown) => {
    instance.addHook('onRoute', (route) => {
      documentRefusals(route);
      if (route.config?.access) return;
      route.config = { ...route.config, access: routeAccess(route, resource) };
    });
    await instance.register(plugin as unknown as FastifyPluginAsync, options as Record<string, never>);
  };
  Object.defineProperty(wrapped, 'name', { value: plugin.name });
  return wrapped as unknown as P;
}

/**
 * Refuses (403 forbidden, naming the missing permission) what the key's policy, or the signed-in person's
 * role (`role`), does not allow.
 */
export function checkAccess(
  access: RouteAccess | undefined,
  key: { policy: Policy; farms: readonly string[] | null; role?: RoleName },
): void {
  if (access === 'any' || access === 'per-tool') return;
  // Unreachable once started (the route table refuses such a route), so fail closed rather than open.
  if (!access) throw forbidden('This route declares no access, so no key may call it.');
  const missing = missingPermission(key.policy, access.needs);
  if (missing && key.role) {
    throw forbidden(
      `Your role (${key.role}) does not allow ${describeResourcePermission(missing)}; ask an owner of the account.`,
    );
  }
  if (missing) throw forbidden(`This key lacks ${describePermission(missing)}.`);
  if (access.allFarmsOnly && key.farms !== null) {
    throw forbidden('This key is restricted to chosen farms, so it cannot create farms.');
  }
}
