/**
 * MCP resources: what an agent (or the person, in a client that shows resources) can read without a tool
 * call, each at a stable URI. Listed per the caller: the farms and houses its key reaches, and only when
 * its permissions allow the matching tool (farm_brief, house_status). The server is stateless, so it
 * sends no list-changed or updated notifications (there is no stream to carry them); on 2026-07-28 a read
 * carries a cache hint saying how long it stays fresh, and on either era a client reads again to refresh.
 */
import { type McpServer, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import { buildCatalog } from '../../domain/catalog.ts';
import { AppError } from '../../domain/errors.ts';
import { buildBrief } from '../brief/service.ts';
import { listFarms } from '../farms/service.ts';
import { getHouse, listHouseNames } from '../houses/service.ts';
import { toolAllowed } from './permissions.ts';
import type { ToolContext } from './tool.ts';

export const CATALOG_URI = 'farmstead://catalog';
export const briefUri = (farmId: string) => `farmstead://farms/${farmId}/brief`;
export const houseUri = (houseId: string) => `farmstead://houses/${houseId}`;

/** Farms listed (the newest first): more than an agent would browse, fewer than a slow list. */
const MAX_FARMS_LISTED = 50;
const JSON_TYPE = 'application/json';

function json(uri: URL, value: unknown) {
  return { contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(value) }] };
}

/** Reads with the key's scope; a record it cannot reach is "not found", never someone else's. */
async function scoped<T>(uri: URL, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') throw new ResourceNotFoundError(uri.href);
    throw err;
  }
}

async function farmsOf(ctx: ToolContext) {
  return (await listFarms(ctx.db, ctx.scope, { limit: MAX_FARMS_LISTED, before: null })).data;
}

const offers = (ctx: ToolContext, tool: string) => !ctx.policy || toolAllowed(tool, ctx.policy);

export function registerResources(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'catalog',
    CATALOG_URI,
    {
      title: 'Catalog',
      description: 'Metrics with units, default alert rules, and the commands of each device type.',
      mimeType: JSON_TYPE,
      cacheHint: { ttlMs: 3_600_000, cacheScope: 'public' },
    },
    (uri) => json(uri, buildCatalog()),
  );

  if (offers(ctx, 'farm_brief')) {
    server.registerResource(
      'farm_brief',
      new ResourceTemplate('farmstead://farms/{farm_id}/brief', {
        list: async () => ({
          resources: (await farmsOf(ctx)).map((farm) => ({
            uri: briefUri(farm.id),
            name: `${farm.name} brief`,
            title: `${farm.name}: what needs attention`,
            mimeType: JSON_TYPE,
          })),
        }),
      }),
      {
        title: 'Farm brief',
        description: 'What needs attention on a farm, ranked (the farm_brief tool as a resource).',
        mimeType: JSON_TYPE,
        cacheHint: { ttlMs: 60_000, cacheScope: 'private' },
      },
      async (uri, variables) =>
        json(uri, await scoped(uri, () => buildBrief(ctx.db, ctx.scope, String(variables.farm_id)))),
    );
  }

  if (offers(ctx, 'house_status')) {
    server.registerResource(
      'house',
      new ResourceTemplate('farmstead://houses/{house_id}', {
        list: async () => {
          const resources = [];
          for (const farm of await farmsOf(ctx)) {
            for (const house of await listHouseNames(ctx.db, ctx.scope, farm.id)) {
              resources.push({
                uri: houseUri(house.id),
                name: house.name,
                title: `${house.name} (${farm.name})`,
                mimeType: JSON_TYPE,
              });
            }
          }
          return { resources };
        },
      }),
      {
        title: 'House status',
        description: "A mobile poultry house's doors, move, climate, latest readings and last commands.",
        mimeType: JSON_TYPE,
        cacheHint: { ttlMs: 30_000, cacheScope: 'private' },
      },
      async (uri, variables) =>
        json(uri, await scoped(uri, () => getHouse(ctx.db, ctx.scope, String(variables.house_id)))),
    );
  }
}
