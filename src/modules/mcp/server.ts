/**
 * One McpServer per request, built for the calling key: stateless serving, so nothing about a client
 * lives between requests and any process can answer any request.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { CATALOG_VERSION } from '../../domain/catalog.ts';
import { toolOffered } from './permissions.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources } from './resources.ts';
import type { RegisteredTool, ToolContext } from './tool.ts';
import { listAlertsTool, listRulesTool, updateAlertTool } from './tools/alerts.ts';
import { BREEDING_TOOLS } from './tools/breeding.ts';
import { getReadingsTool, houseCommandTool, houseStatusTool, listDevicesTool } from './tools/devices.ts';
import { farmBriefTool, getCatalogTool, listFarmsTool } from './tools/farms.ts';
import { clearToSellTool, giveTreatmentTool, listMedicinesTool } from './tools/herd-book.ts';
import {
  addAnimalTool,
  addTaskTool,
  completeTaskTool,
  findAnimalsTool,
  getAnimalTool,
  listGroupsTool,
  listPaddocksTool,
  listTasksTool,
  logEventTool,
} from './tools/records.ts';
import { animalWeightsTool, groupWeightsTool, recordWeightTool } from './tools/weights.ts';

/** Every tool, in the order of the spec's table (and of tools/list). */
export const TOOLS: readonly RegisteredTool[] = [
  listFarmsTool,
  farmBriefTool,
  listAlertsTool,
  updateAlertTool,
  findAnimalsTool,
  getAnimalTool,
  addAnimalTool,
  logEventTool,
  listGroupsTool,
  listPaddocksTool,
  listDevicesTool,
  getReadingsTool,
  houseStatusTool,
  houseCommandTool,
  listTasksTool,
  addTaskTool,
  completeTaskTool,
  getCatalogTool,
  listRulesTool,
  // The herdbook toolset (opt-in, toolsets.ts).
  clearToSellTool,
  giveTreatmentTool,
  listMedicinesTool,
  recordWeightTool,
  animalWeightsTool,
  groupWeightsTool,
  ...BREEDING_TOOLS,
];

export const MCP_INSTRUCTIONS = [
  'Farmstead: a farm and ranch platform. These tools act with exactly the API key you were given: its account, and its mode (a live key sees live farms, a test key the sample farm and other test farms).',
  'Start with farm_brief for what needs attention, or list_farms to find a farm_id. farm_id may be left out when the key sees exactly one farm.',
  'Lists return newest first with has_more and next_before; pass next_before as before to get the next page.',
  'house_command refuses to move a house, or to open pop doors after dark at the farm, unless confirm is true: ask the farmer first, then call again with confirm: true.',
  'A tool answer is in structuredContent; its text is a short summary. Write tools take idempotency_key: reuse it when retrying.',
  'Ask for the herdbook toolset (/mcp?toolsets=all or herdbook) for treatments, withdrawal, weights and breeding.',
  'As this key allows: resources farmstead://farms/{farm_id}/brief, farmstead://houses/{house_id} and farmstead://catalog; prompts morning_check, evening_lockup and investigate_alert.',
].join('\n');

export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(
    { name: 'farmstead', title: 'Farmstead', version: CATALOG_VERSION },
    {
      // Stateless: no stream carries notifications, so no list or resource ever announces a change.
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false, subscribe: false },
        prompts: { listChanged: false },
      },
      instructions: MCP_INSTRUCTIONS,
    },
  );
  const offered = new Set<string>();
  for (const tool of TOOLS) {
    if (!toolOffered(tool, ctx)) continue;
    tool.register(server, ctx);
    offered.add(tool.name);
  }
  registerResources(server, ctx);
  registerPrompts(server, offered);
  return server;
}
