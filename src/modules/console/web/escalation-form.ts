/**
 * The farm's escalation chain (Settings, owners): an urgent alert nobody acknowledged within N minutes
 * notifies the next step, and so on, until someone acknowledges it or it resolves. Saved as
 * `settings.escalation` with PATCH /v1/farms/{farm}; the API's error names the step it is about.
 */
import { DEFAULT_ESCALATION, type Escalation, type EscalationStep } from '../../../domain/escalation.ts';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../../domain/notification-channels.ts';
import { api } from './api.ts';
import { t } from './i18n.ts';
import { html, useState } from './lib.ts';
import { type Farm, state, update } from './store.ts';
import { ErrorText, useAction, useLoad } from './ui.ts';

const TARGETS = ['owners', 'crew', 'everyone'] as const;

function chainOf(farm: Farm): Escalation | null {
  const raw = (farm.settings as Record<string, unknown>).escalation;
  if (raw === false) return null;
  return (raw as Escalation | undefined) ?? DEFAULT_ESCALATION;
}

export function EscalationChain({ farm }: { farm: Farm }) {
  const initial = chainOf(farm);
  const [on, setOn] = useState(initial !== null);
  const [after, setAfter] = useState(String(initial?.after_minutes ?? DEFAULT_ESCALATION.after_minutes));
  const [steps, setSteps] = useState<EscalationStep[]>(initial?.steps ?? DEFAULT_ESCALATION.steps);
  const people = useLoad(() => api('GET', '/v1/people'), []);
  const save = useAction(async () => {
    const escalation = on ? { after_minutes: Number(after), steps } : false;
    const saved = await api('PATCH', '/v1/farms/{farm}', {
      path: { farm: farm.id },
      body: { settings: { escalation } },
    });
    update({ farms: state.farms.map((f) => (f.id === saved.id ? saved : f)) });
    return t('escalation.saved');
  });
  const setStep = (i: number, step: EscalationStep) => setSteps(steps.map((s, j) => (j === i ? step : s)));
  const toggle = (i: number, channel: NotificationChannel, checked: boolean) => {
    const step = steps[i] as EscalationStep;
    const channels = checked ? [...step.channels, channel] : step.channels.filter((c) => c !== channel);
    setStep(i, { ...step, channels });
  };
  return html`<section class="panel" aria-labelledby="escalation-title">
    <h2 id="escalation-title">${t('escalation.title')}</h2>
    <p class="muted">${t('escalation.help')}</p>
    <label class="check"><input type="checkbox" checked=${on} onChange=${(e: Event) => setOn((e.currentTarget as HTMLInputElement).checked)} /> ${t('escalation.on')}</label>
    <label for="escalation-after">${t('escalation.after')}</label>
    <input id="escalation-after" type="number" min="1" max="1440" value=${after} disabled=${!on}
      onInput=${(e: Event) => setAfter((e.currentTarget as HTMLInputElement).value)} />
    <ol class="escalation-steps">${steps.map(
      (step, i) => html`<li key=${i}>
        <select aria-label=${t('escalation.step_who', { step: i + 1 })} value=${step.notify} disabled=${!on}
          onChange=${(e: Event) => setStep(i, { ...step, notify: (e.currentTarget as HTMLSelectElement).value })}>
          ${TARGETS.map((value) => html`<option value=${value}>${t(`escalation_target.${value}`)}</option>`)}
          ${(people.data?.data ?? []).map((p) => html`<option value=${p.id}>${p.name ?? p.email}</option>`)}
        </select>
        ${NOTIFICATION_CHANNELS.map(
          (
            c,
          ) => html`<label class="check"><input type="checkbox" checked=${step.channels.includes(c)} disabled=${!on}
            onChange=${(e: Event) => toggle(i, c, (e.currentTarget as HTMLInputElement).checked)} /> ${c}</label>`,
        )}
        <button type="button" class="button secondary" disabled=${!on} onClick=${() => setSteps(steps.filter((_, j) => j !== i))}>${t('escalation.remove')}</button>
      </li>`,
    )}</ol>
    <button type="button" class="button secondary" disabled=${!on || steps.length >= 10}
      onClick=${() => setSteps([...steps, { notify: 'owners', channels: ['push'] }])}>${t('escalation.add')}</button>
    <button type="button" class="button primary" disabled=${save.busy} onClick=${() => save.run()}>${save.busy ? t('escalation.saving') : t('escalation.save')}</button>
    ${save.done && html`<span class="done" role="status">${save.done}</span>`}
    <${ErrorText} error=${save.error} />
  </section>`;
}
