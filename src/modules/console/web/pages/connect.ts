/**
 * The consent page of OAuth for MCP connectors (docs/oauth.md): /oauth/authorize checks a client's request and
 * sends the person here with it. Signed in (or after signing in), they see which client asks (the name it
 * gives itself and where the answer goes), pick the mode, the farms and what it may do, and allow or deny;
 * the browser then goes back to the client with a code (or access_denied). The server checks the request
 * again on both calls, so nothing here is trusted.
 */
import { api, type Body, type Problem, type Reply } from '../api.ts';
import { checkedOf, html, useState } from '../lib.ts';
import { signedIn, useStore } from '../store.ts';
import { ErrorText, Loading, problemOf, useLoad } from '../ui.ts';

type Request = Body<'POST', '/v1/oauth/authorization'>['request'];
type Described = Reply<'GET', '/v1/oauth/authorization'>;
type Level = Described['levels'][number]['level'];
type Mode = Described['mode'];

/** What each level lets an agent do, in the farmer's words. */
const LEVEL_HELP: Record<Level, string> = {
  read: 'Sees farms, animals, tasks, events, alerts, houses and readings. Changes nothing.',
  record: 'Also adds tasks and farm events, records animals, and acknowledges or resolves alerts.',
  full: 'Also sends house and device commands (doors, feeders, moving a house) and changes farm records.',
};

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
    <h1>Connect ${client.name}?</h1>
    <p><strong>${client.name}</strong> asks to use Farmstead as <strong>${session.person.email}</strong>.
      When you answer, you go back to <strong class="redirect-host">${client.redirect_host}</strong>.</p>
    ${client.published_by && html`<p class="small">Its description is published by <strong class="published-by">${client.published_by}</strong>.</p>`}
    <p class="muted small">The name is what the app calls itself. Allow only if you just connected it from an app you trust at that address.</p>
    <form onSubmit=${(e: Event) => {
      e.preventDefault();
      answer('allow');
    }}>
      <fieldset class="checks"><legend>Mode</legend>
        ${(['live', 'test'] as const).map(
          (m) => html`<label><input type="radio" name="mode" value=${m} checked=${mode === m}
            onChange=${() => setMode(m)} />${m === 'live' ? 'Live farms' : 'Test farms (sample)'}</label>`,
        )}
      </fieldset>
      <fieldset class="checks connect-farms"><legend>Farms</legend>
        <label><input type="checkbox" name="every_farm" checked=${everyFarm}
          onChange=${(e: Event) => setEveryFarm(checkedOf(e))} />Every ${mode} farm, also ones added later</label>
        ${ofMode.map(
          (
            f,
          ) => html`<label><input type="checkbox" name="farm" value=${f.id} checked=${everyFarm || farms.includes(f.id)}
            disabled=${everyFarm} onChange=${() => toggle(f.id)} />${f.name}</label>`,
        )}
        ${ofMode.length === 0 && html`<p class="muted small">No ${mode} farms yet.</p>`}
      </fieldset>
      <fieldset class="levels"><legend>What it may do</legend>
        ${described.levels.map(
          (
            l,
          ) => html`<label class="level"><input type="radio" name="level" value=${l.level} checked=${level === l.level}
            onChange=${() => setLevel(l.level)} /><span><strong>${l.title}</strong>
            <span class="muted small">${LEVEL_HELP[l.level]}</span></span></label>`,
        )}
      </fieldset>
      <${ErrorText} error=${error} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${busy}>${busy ? 'Connecting…' : 'Allow'}</button>
        <button type="button" class="button" disabled=${busy} onClick=${() => answer('deny')}>Deny</button>
      </div>
    </form>
    <p class="muted small">You can disconnect it at any time on <a href="/account">your account page</a>.</p>
  </div>`;
}

export function Page() {
  const request = requestOfUrl();
  const described = useLoad(
    () => api('GET', '/v1/oauth/authorization', { query: request }),
    [location.search],
  );
  if (!described.data) {
    return html`<div class="panel auth"><h1>Connect an agent</h1><${Loading} error=${described.error} /></div>`;
  }
  return html`<${Consent} request=${request} described=${described.data} />`;
}
