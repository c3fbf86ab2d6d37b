/**
 * The light part of what the herd book's pages share: an animal's name as they write it, and the withdrawal
 * banner and override reason of web/herd-book.ts (with its style sheet and words) loaded on demand, for the
 * pages that show them only sometimes (the animal page, the chute): when the animal is inside a withdrawal, or
 * a sale is being logged, not with every load of those pages (issue 45's page weight).
 */
import type { Problem, Schema } from './api.ts';
import { html } from './lib.ts';
import { lazy } from './on-demand.ts';

/** An animal as the herd book's pages name it: tag and name, or its id. */
export function nameOf(a: Pick<Schema<'Animal'>, 'tag' | 'name' | 'id'>): string {
  return [a.tag, a.name].filter(Boolean).join(' ') || a.id;
}

const useHerdBook = lazy(() => import('./herd-book.ts'));

type Withdrawn = Pick<Schema<'Animal'>, 'withdrawal'>;

/** The withdrawal banner of an animal inside a withdrawal (meat, milk or eggs held); nothing otherwise. */
export function Withdrawal({ animal, timezone }: { animal: Withdrawn; timezone: string }) {
  const now = Date.now();
  const held = (['meat', 'milk', 'eggs'] as const).some((food) => {
    const until = animal.withdrawal?.[`${food}_until`];
    return !!until && Date.parse(until) > now;
  });
  const Banner = useHerdBook(held).module?.WithdrawalBanner;
  return held && Banner ? html`<${Banner} withdrawal=${animal.withdrawal} timezone=${timezone} />` : null;
}

/** The override reason a refused sale asks for (shown once the API names it); instants in the farm's `timezone`. */
export function SaleOverride({ error, timezone }: { error: Problem | null; timezone: string }) {
  const Override = useHerdBook().module?.OverrideField;
  return Override ? html`<${Override} error=${error} idPrefix="log" timezone=${timezone} />` : null;
}
