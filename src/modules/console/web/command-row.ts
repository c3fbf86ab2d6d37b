/**
 * One command as a person reads it (issue 45): the sentence in the reader's words and units ("Close pop doors
 * 1 and 2", "Fijar la temperatura objetivo en 75 °F", src/domain/command-terms.ts), its state as a chip, its
 * time, why the device said it failed; the code, id and parameters as sent only in a closed "technical
 * details" disclosure. A device's command history (web/command-history.ts) and a house card's recent
 * commands (web/pages/houses.ts) show their commands so.
 */
import { commandSentence } from '../../../domain/command-terms.ts';
import type { Schema } from './api.ts';
import { type MessageKey, reader, t } from './i18n.ts';
import { html } from './lib.ts';
import { farmTime } from './ui.ts';

type Command = Schema<'Command'>;

/**
 * What the device said about a failed command (its result's `error` or `message`; a Command has no error
 * member of its own).
 */
function failure(command: Command): string | null {
  const said = command.result?.error ?? command.result?.message;
  return command.status === 'failed' && typeof said === 'string' ? said : null;
}

export function CommandRow({
  command: c,
  timezone,
  nameOf,
  anchor = false,
}: {
  command: Command;
  timezone: string;
  /** The name of a record a parameter holds the id of (a paddock), when known. */
  nameOf(id: string): string | undefined;
  /** Whether the row is a link target (`#cmd_…`): the history's rows are, a card's few are not. */
  anchor?: boolean;
}) {
  const failed = failure(c);
  return html`<li id=${anchor ? c.id : undefined} class="command" data-command=${c.command}>
    <span class="sentence">${commandSentence(c.command, c.params, reader, nameOf)}</span>
    <span class=${`status ${c.status}`}>${t(`command_status.${c.status}` as MessageKey)}</span>
    <span class="muted small">${farmTime(c.created_at, timezone)}</span>
    ${failed && html`<span class="error small">${failed}</span>`}
    <details class="technical"><summary>${t('command.technical')}</summary>
      <code>${c.command}</code> · <code>${c.id}</code>
      <pre>${JSON.stringify(c.params ?? {}, null, 2)}</pre></details>
  </li>`;
}
