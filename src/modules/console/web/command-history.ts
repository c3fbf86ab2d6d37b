/**
 * A device's full command history, 25 a page, live (issue 45: every record named in words): each command as
 * a sentence in the reader's words and units ("Close pop doors 1 and 2", "Fijar la temperatura objetivo en
 * 24 °C", from src/domain/command-terms.ts, the command form's words), its state as a chip, its time as the
 * console writes times; the code, id and parameters as sent only in a closed "technical details" disclosure
 * (web/command-row.ts, a row the houses page's recent commands share).
 * The device page loads it, with the words, when the history is scrolled to (web/pages/device.ts).
 */
import { api, type Schema } from './api.ts';
import { CommandRow } from './command-row.ts';
import { words } from './i18n.ts';
import { html } from './lib.ts';
import { EN, ES } from './messages/devices.ts';
import { Pager, usePager } from './records.ts';
import { useFarmStream } from './stream.ts';
import { Loading, useLoad } from './ui.ts';

type Command = Schema<'Command'>;

const w = words(EN, ES);

/** The paddocks' names, when a page of commands names one (a house sent to a paddock). */
async function paddockNames(farm: string, commands: readonly Command[]): Promise<Map<string, string>> {
  if (!commands.some((c) => typeof c.params?.paddock_id === 'string')) return new Map();
  const paddocks = await api('GET', '/v1/farms/{farm}/paddocks', {
    path: { farm },
    query: { limit: 100 },
  }).catch(() => ({ data: [] }));
  return new Map(paddocks.data.map((p) => [p.id, p.name]));
}

export function CommandHistory({ device, timezone }: { device: Schema<'Device'>; timezone: string }) {
  const pager = usePager(device.id);
  const commands = useLoad(async () => {
    const page = await api('GET', '/v1/devices/{id}/commands', {
      path: { id: device.id },
      query: { limit: 25, before: pager.before },
    });
    return { page, names: await paddockNames(device.farm_id, page.data) };
  }, [device.id, pager.before]);
  useFarmStream(device.farm_id, ['command.queued', 'command.done', 'command.failed'], () =>
    commands.reload(),
  );
  if (!commands.data) return html`<${Loading} error=${commands.error} retry=${commands.reload} />`;
  const { page, names } = commands.data;
  if (page.data.length === 0 && pager.number === 1) return html`<p class="muted">${w('no_commands')}</p>`;
  return html`<ul class="commands command-history" aria-label=${w('command_history')}>
      ${page.data.map(
        (c) =>
          html`<${CommandRow} key=${c.id} command=${c} timezone=${timezone} nameOf=${(id: string) => names.get(id)} anchor />`,
      )}
    </ul>
    <${Pager} pager=${pager} page=${page} />`;
}
