/**
 * The consent page of OAuth for MCP connectors (docs/oauth.md): /oauth/authorize checks a client's request and
 * sends the person here with it. Signed in (or after signing in), they see which client asks (the name it
 * gives itself and where the answer goes), pick the mode, the farms and what it may do, and allow or deny;
 * the browser then goes back to the client with a code (or access_denied). The server checks the request
 * again on both calls, so nothing here is trusted.
 */
import { api, type Body, type Problem, type Reply } from '../api.ts';
import { words } from '../i18n.ts';
import { checkedOf, html, type Markup, useState } from '../lib.ts';
import { EN, ES } from '../messages/connect.ts';
import { useReader } from '../reader-hook.ts';
import { signedIn, useStore } from '../store.ts';
import { ErrorText, Loading, problemOf, useLoad } from '../ui.ts';

type Request = Body<'POST', '/v1/oauth/authorization'>['request'];
type Described = Reply<'GET', '/v1/oauth/authorization'>;
type Level = Described['levels'][number]['level'];
type Mode = Described['mode'];

const w = words(EN, ES);

/**
 * A whole sentence with some of its placeholders shown as markup (the redirect host and the publisher are
 * tagged for the person and for tests): the message is filled with markers, then split at them.
 */
function sentence(text: string, parts: Record<string, Markup>): Markup[] {
  return text.split(/⟦(\w+)⟧/).map((piece, i) => (i % 2 === 1 ? (parts[piece] ?? piece) : piece));
}
const marker = (name: string) => `⟦${name}⟧`;

function requestOfUrl(): Request {
  const search = new URLSearchParams(location.search);
  const request: Record<string, string> = {};
  for (const name of [
    'response_type',
    'client_id',
    'redirect_uri',
    'state',
    'scope',
    'code_challenge',
    'code_challenge_method',
    'resource',
    'prompt',
  ]) {
    const value = search.get(name);
    if (value !== null) request[name] = value;
  }
  return request;
}

function Consent({ request, described }: { request: Request; described: Described }) {
  useReader();
  useStore();
  const session = signedIn();
  const [mode, setMode] = useState<Mode>(described.mode);
  const [everyFarm, setEveryFarm] = useState(true);
  const [farms, setFarms] = useState<string[]>([]);
  const [level, setLevel] = useState<Level>('read');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const ofMode = described.farms.filter((f) => f.mode === mode);
  const toggle = (id: string) =>
    setFarms(farms.includes(id) ? farms.filter((f) => f !== id) : [...farms, id]);

  const answer = async (decision: 'allow' | 'deny') => {
    setBusy(true);
    setError(null);
    try {
      const body: Body<'POST', '/v1/oauth/authorization'> =
        decision === 'deny'
          ? { request, decision }
          : {
              request,
              decision,
              mode,
              level,
              farms: everyFarm ? null : farms.filter((id) => ofMode.some((f) => f.id === id)),
            };
      const { redirect_to } = await api('POST', '/v1/oauth/authorization', { body });
      location.assign(redirect_to);
    } catch (err) {
      setError(problemOf(err));
      setBusy(false);
    }
  };
  const client = described.client;
  return html`<div class="panel auth connect">
    <h1>${w('ask', { client: client.name })}</h1>
    <p>${sentence(w('asks', { client: marker('client'), email: marker('email'), host: marker('host') }), {
      client: html`<strong>${client.name}</strong>`,
      email: html`<strong>${session.person.email}</strong>`,
      host: html`<strong class="redirect-host">${client.redirect_host}</strong>`,
    })}</p>
    ${
      client.published_by &&
      html`<p class="small">${sentence(w('published', { publisher: marker('publisher') }), {
        publisher: html`<strong class="published-by">${client.published_by}</strong>`,
      })}</p>`
    }
    <p class="muted small">${w('trust')}</p>
    <form onSubmit=${(e: Event) => {
      e.preventDefault();
      answer('allow');
    }}>
      <fieldset class="checks"><legend>${w('mode')}</legend>
        ${(['live', 'test'] as const).map(
          (m) => html`<label><input type="radio" name="mode" value=${m} checked=${mode === m}
            onChange=${() => setMode(m)} />${m === 'live' ? w('live') : w('test')}</label>`,
        )}
      </fieldset>
      <fieldset class="checks connect-farms"><legend>${w('farms')}</legend>
        <label><input type="checkbox" name="every_farm" checked=${everyFarm}
          onChange=${(e: Event) => setEveryFarm(checkedOf(e))} />${w(mode === 'live' ? 'every_live' : 'every_test')}</label>
        ${ofMode.map(
          (
            f,
          ) => html`<label><input type="checkbox" name="farm" value=${f.id} checked=${everyFarm || farms.includes(f.id)}
            disabled=${everyFarm} onChange=${() => toggle(f.id)} />${f.name}</label>`,
        )}
        ${ofMode.length === 0 && html`<p class="muted small">${w(mode === 'live' ? 'no_live' : 'no_test')}</p>`}
      </fieldset>
      <fieldset class="levels"><legend>${w('may')}</legend>
        ${described.levels.map(
          (
            l,
          ) => html`<label class="level"><input type="radio" name="level" value=${l.level} checked=${level === l.level}
            onChange=${() => setLevel(l.level)} /><span><strong>${w(`level.${l.level}`)}</strong>
            <span class="muted small">${w(`help.${l.level}`)}</span></span></label>`,
        )}
      </fieldset>
      <${ErrorText} error=${error} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${busy}>${busy ? w('connecting') : w('allow')}</button>
        <button type="button" class="button" disabled=${busy} onClick=${() => answer('deny')}>${w('deny')}</button>
      </div>
    </form>
    <p class="muted small">${w('later')} <a href="/account">${w('account_page')}</a>.</p>
  </div>`;
}

export function Page() {
  useReader();
  const request = requestOfUrl();
  // Opened without an agent's request (typed, bookmarked, followed from elsewhere): nothing to answer, so
  // say what the page is for rather than show the server's refusal of an empty request.
  const asked = request.client_id !== undefined;
  const described = useLoad(
    () => (asked ? api('GET', '/v1/oauth/authorization', { query: request }) : Promise.resolve(null)),
    [location.search],
  );
  if (!asked) {
    return html`<div class="panel auth"><h1>${w('title')}</h1>
      <p>${w('no_request', { url: `${location.origin}/mcp` })}</p></div>`;
  }
  if (!described.data) {
    return html`<div class="panel auth"><h1>${w('title')}</h1><${Loading} error=${described.error} /></div>`;
  }
  return html`<${Consent} request=${request} described=${described.data} />`;
}
