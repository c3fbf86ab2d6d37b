/** The contract between the router and each page module (pages import this, never index.ts). */
import type { Schema } from '../api.ts';

/** What every page is given: the chosen farm (absent on public pages) and the path's parameters. */
export interface PageProps {
  farm: Schema<'Farm'>;
  params: Record<string, string>;
}

export interface PageModule {
  Page(props: PageProps): unknown;
}
