/**
 * Toolsets: the tools grouped by what they are about, so a connection can ask for only the ones it needs
 * (`/mcp?toolsets=houses,records` or the `X-MCP-Toolsets` header, as GitHub's MCP server does) and an
 * agent's context holds fewer tool schemas. The farms set is always on: every other tool needs a farm_id
 * from it, and farm_brief is where an agent starts. A connection that names none gets the default sets
 * (DEFAULT_TOOLSETS); an opt-in set (herdbook) only when asked for by name or with `all`. Written once
 * here; docs/mcp.md shows the table.
 */
import { invalid } from '../../domain/errors.ts';

export const TOOLSETS = {
  farms: ['list_farms', 'farm_brief', 'get_catalog'],
  alerts: ['list_alerts', 'update_alert', 'list_rules'],
  records: [
    'find_animals',
    'get_animal',
    'add_animal',
    'log_event',
    'list_groups',
    'list_paddocks',
    'list_tasks',
    'add_task',
    'complete_task',
  ],
  devices: ['list_devices', 'get_readings'],
  houses: ['house_status', 'house_command'],
  // The herd book (issues 46 and 47): opt-in, so the default list stays within its budget.
  herdbook: [
    'clear_to_sell',
    'give_treatment',
    'list_medicines',
    'record_weight',
    'animal_weights',
    'group_weights',
    'due_dates',
    'mating_check',
    'get_pedigree',
  ],
} as const satisfies Record<string, readonly string[]>;

export type ToolsetName = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as ToolsetName[];
/** The set every connection gets, whatever it asks for. */
export const ALWAYS_ON: ToolsetName = 'farms';

/** The sets a connection gets when it names none: every set but the opt-in ones. */
export const DEFAULT_TOOLSETS: readonly ToolsetName[] = ['farms', 'alerts', 'records', 'devices', 'houses'];

/**
 * What tools/list may weigh, in bytes of its JSON (src/modules/mcp/mcp.test.ts measures both): the default
 * list, which every agent reads before doing anything, and the list of every tool (`all`), which an agent
 * asks for knowing it costs more (docs/mcp.md).
 */
export const TOOLS_LIST_BUDGET = { default: 24 * 1024, all: 40 * 1024 } as const;

function toolsOf(sets: readonly ToolsetName[]): Set<string> {
  return new Set<string>(sets.flatMap((set) => TOOLSETS[set]));
}

const DEFAULT_TOOLS: ReadonlySet<string> = toolsOf(DEFAULT_TOOLSETS);

/**
 * The tools a connection asked for: the default sets when it named none; null (every tool) for `all`;
 * otherwise the named sets plus the always-on one. An unknown name is a 400 naming the valid ones.
 */
export function parseToolsets(raw: string | undefined): ReadonlySet<string> | null {
  if (raw === undefined || raw.trim() === '') return DEFAULT_TOOLS;
  const names = raw
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.includes('all')) return null;
  const tools = toolsOf([ALWAYS_ON]);
  for (const name of names) {
    if (!(name in TOOLSETS)) {
      throw invalid(
        'toolsets',
        `Unknown toolset "${name}". Toolsets are ${TOOLSET_NAMES.join(', ')} (${ALWAYS_ON} is always on), or all.`,
      );
    }
    for (const tool of TOOLSETS[name as ToolsetName]) tools.add(tool);
  }
  return tools;
}
