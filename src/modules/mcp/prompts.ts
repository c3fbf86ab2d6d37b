/**
 * MCP prompts: the farm's routines as instructions an agent follows, each naming the tools to use in
 * order. A prompt is offered only when every tool it reads with is offered to the connection (permissions,
 * toolsets, read-only mode); its last step, a change to propose, is left out when the connection may not
 * make it. So it never sends the agent to a tool it cannot call.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { Type } from 'typebox';
import { toolSchema } from './schema.ts';

interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  /** The tools the routine reads with: all must be offered. */
  tools: readonly string[];
  /** The tools its last step proposes to act with: that step is said only when they are offered. */
  acts: readonly string[];
  /** The farm (optional) or the alert (required) the routine is about. */
  subject: 'farm' | 'alert';
  text(subject: string | undefined, mayAct: boolean): string;
}

const farmLine = (farmId: string | undefined) =>
  farmId
    ? `Work on the farm ${farmId} (pass it as farm_id).`
    : 'If the key sees several farms, call list_farms first and ask which farm, unless the farmer named it.';

export const PROMPTS: readonly PromptDefinition[] = [
  {
    name: 'morning_check',
    title: 'Morning check',
    description: 'Go through what needs attention this morning and propose the day’s jobs.',
    tools: ['farm_brief', 'list_alerts', 'house_status', 'list_tasks'],
    acts: ['add_task'],
    subject: 'farm',
    text: (farmId, mayAct) =>
      [
        'Do the morning check of the farm.',
        farmLine(farmId),
        '1. Call farm_brief: read its headline and ranked items.',
        '2. For every urgent or watch alert, call list_alerts (status active) for the reason and the subject.',
        '3. Call house_status: for each house check feed.bin_pct and water.tank_pct, climate (temperature, ammonia), battery, and whether the doors opened on schedule.',
        '4. Call list_tasks for what is open and due today.',
        '5. Tell the farmer, most urgent first, in a few short lines.',
        ...(mayAct
          ? ['6. Propose tasks for what needs doing; add them with add_task only after the farmer agrees.']
          : []),
      ].join('\n'),
  },
  {
    name: 'evening_lockup',
    title: 'Evening lock-up',
    description: 'Before night: are the doors closed after dusk, and is there feed and water for the night?',
    tools: ['farm_brief', 'house_status', 'list_alerts'],
    acts: ['house_command'],
    subject: 'farm',
    text: (farmId, mayAct) =>
      [
        'Do the evening lock-up check of the farm.',
        farmLine(farmId),
        '1. Call farm_brief: counts.doors_open_after_dusk says how many houses still have doors open after dusk.',
        '2. Call house_status: for each house list the doors still open, feed.bin_pct and water.tank_pct (enough for the night: above about 25%), the heaters and the winter floor if it is cold, and any command still queued.',
        '3. Call list_alerts for anything urgent (predators, a water leak, a quiet house) before the night.',
        '4. Tell the farmer what is not ready.',
        ...(mayAct
          ? [
              '5. Offer to close doors with house_command doors.close; send it only after the farmer agrees, then call house_status again to confirm the doors closed.',
            ]
          : []),
      ].join('\n'),
  },
  {
    name: 'investigate_alert',
    title: 'Investigate an alert',
    description: 'Find out why an alert opened, what it is about, and what to do.',
    tools: ['list_alerts', 'list_rules', 'get_readings', 'list_devices'],
    acts: ['update_alert', 'add_task'],
    subject: 'alert',
    text: (alertId, mayAct) =>
      [
        `Investigate the alert ${alertId}.`,
        '1. Call list_alerts (status all) and find the alert: its rule, reason, severity and subject.',
        '2. Call list_rules to see the rule it names: the metric, the watch and urgent lines and the clear value.',
        '3. For a device subject, call get_readings on it for that metric over the last 24 hours (since) to see the trend; for an animal subject, call list_devices with animal_id to find its trackers first.',
        '4. Explain to the farmer what happened and what to check on the ground.',
        ...(mayAct
          ? [
              '5. When someone is on it, offer update_alert acknowledge; when it is dealt with, resolve. Offer add_task (with alert_id) for a follow-up job. Act only after the farmer agrees.',
            ]
          : []),
      ].join('\n'),
  },
];

const FarmArgs = toolSchema(
  Type.Object(
    { farm_id: Type.Optional(Type.String({ minLength: 1, description: 'The farm (from list_farms).' })) },
    { additionalProperties: false },
  ),
  { input: true },
);
const AlertArgs = toolSchema(
  Type.Object(
    { alert_id: Type.String({ minLength: 1, description: 'The alert (from list_alerts or farm_brief).' }) },
    { additionalProperties: false },
  ),
  { input: true },
);

export function registerPrompts(server: McpServer, offered: ReadonlySet<string>): void {
  for (const prompt of PROMPTS) {
    if (!prompt.tools.every((tool) => offered.has(tool))) continue;
    const mayAct = prompt.acts.every((tool) => offered.has(tool));
    const message = (text: string) => ({
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
    });
    const config = { title: prompt.title, description: prompt.description };
    if (prompt.subject === 'farm') {
      server.registerPrompt(prompt.name, { ...config, argsSchema: FarmArgs }, (args) =>
        message(prompt.text(args.farm_id, mayAct)),
      );
    } else {
      server.registerPrompt(prompt.name, { ...config, argsSchema: AlertArgs }, (args) =>
        message(prompt.text(args.alert_id, mayAct)),
      );
    }
  }
}
