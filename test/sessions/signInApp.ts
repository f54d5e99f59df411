/**
 * A test app that keeps its sign-in in three places, as real apps spread
 * it: an HttpOnly cookie (`sid`), a localStorage bearer token (`bearer`) and
 * an IndexedDB record (database `app`, store `profile`, key `me`). `/app`
 * renders "signed in as NAME" only when all three are there and agree, and
 * marks the body `data-state="signed-in"` (else "signed-out", naming what is
 * missing). `/login` signs in with #user, #password and #go. Served on
 * 127.0.0.1 only.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { randomBytes } from 'crypto';

/** The actions that wait for the app's page to be checked: it marks the body once it has read its three stores. */
export const UNTIL_CHECKED = [{ do: 'wait_for_selector', selector: 'body[data-state]' }];

export interface SignInApp {
  origin: string;
  url(p: string): string;
  /** The passwords the app accepts, by user. */
  passwords: Record<string, string>;
  close(): Promise<void>;
}

const STYLE = `body{font:16px/1.4 sans-serif;margin:24px;background:#fff;color:#222}h1{font-size:24px}.role{display:inline-block;padding:4px 8px;background:#def;border-radius:4px}`;

const LOGIN_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title><style>${STYLE}</style></head><body>
<h1>Sign in</h1>
<form id="form"><label>User <input id="user" name="user"></label> <label>Password <input id="password" type="password" name="password"></label>
<button id="go" type="submit">Sign in</button></form><p id="status"></p>
<script>
document.getElementById('form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = JSON.stringify({ user: document.getElementById('user').value, password: document.getElementById('password').value });
  const res = await fetch('/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!res.ok) { document.getElementById('status').textContent = 'refused'; return; }
  const { token, user } = await res.json();
  localStorage.setItem('bearer', token);
  const open = indexedDB.open('app', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('profile');
  open.onsuccess = () => {
    const tx = open.result.transaction('profile', 'readwrite');
    tx.objectStore('profile').put({ user, since: new Date(0), roles: new Set([user]) }, 'me');
    tx.oncomplete = () => { open.result.close(); document.getElementById('status').textContent = 'signed in'; document.body.dataset.state = 'signed-in'; };
  };
});
</script></body></html>`;

const APP_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>App</title><style>${STYLE}</style></head><body>
<h1 id="who">…</h1><p id="why"></p>
<script>
function record() {
  return new Promise((resolve) => {
    const open = indexedDB.open('app', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('profile');
    open.onsuccess = () => {
      const get = open.result.transaction('profile').objectStore('profile').get('me');
      get.onsuccess = () => { open.result.close(); resolve(get.result); };
      get.onerror = () => resolve(undefined);
    };
    open.onerror = () => resolve(undefined);
  });
}
(async () => {
  const bearer = localStorage.getItem('bearer');
  const [res, profile] = await Promise.all([fetch('/api/me', { headers: bearer ? { authorization: 'Bearer ' + bearer } : {} }), record()]);
  const me = res.ok ? await res.json() : null;
  const missing = [];
  if (!me || !me.cookie) missing.push('cookie');
  if (!me || !me.bearer) missing.push('bearer');
  if (!profile || !(profile.since instanceof Date) || !(profile.roles instanceof Set)) missing.push('record');
  const agree = me && me.user && profile && profile.user === me.user && profile.roles.has(me.user);
  if (!missing.length && agree) {
    document.getElementById('who').innerHTML = 'signed in as <span class="role">' + me.user + '</span>';
    document.body.dataset.state = 'signed-in';
  } else {
    document.getElementById('who').textContent = 'signed out';
    document.getElementById('why').textContent = 'missing: ' + (missing.join(', ') || 'agreement');
    document.body.dataset.state = 'signed-out';
  }
})();
</script></body></html>`;

/** Says whether the bearer token is in localStorage (data-state `bearer` or `no-bearer`). */
const WHOAMI_PAGE = `<!doctype html><html><head><meta charset="utf-8"></head><body><p id="t"></p>
<script>const has = localStorage.getItem('bearer') !== null; document.getElementById('t').textContent = has ? 'bearer' : 'no bearer'; document.body.dataset.state = has ? 'bearer' : 'no-bearer';</script></body></html>`;

/** Reports history.length on a click (data-state `history-N`). */
const HISTORY_PAGE = `<!doctype html><html><head><meta charset="utf-8"></head><body><button id="count" onclick="document.body.dataset.state = 'history-' + history.length">count</button></body></html>`;

/** Another origin's page (reached as localhost) sending the page on to /whoami on 127.0.0.1 by script. */
const HOP_PAGE = (target: string) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body><script>location.replace(${JSON.stringify(target)});</script></body></html>`;

/** Signs out as apps do: clears localStorage, then replaces itself with /whoami. */
const LOGOUT_PAGE = `<!doctype html><html><head><meta charset="utf-8"></head><body><script>localStorage.clear(); location.replace('/whoami');</script></body></html>`;

export async function serveSignInApp(): Promise<SignInApp> {
  const passwords: Record<string, string> = { admin: 'admin-pass-7Q', member: 'member-pass-3K' };
  /** token -> user, for the cookie and the bearer token alike (each sign-in makes its own two). */
  const sids = new Map<string, string>();
  const bearers = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const urlPath = (req.url || '/').split('?')[0];
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    if (urlPath === '/login') return send(200, 'text/html; charset=utf-8', LOGIN_PAGE);
    if (urlPath === '/app') return send(200, 'text/html; charset=utf-8', APP_PAGE);
    if (urlPath === '/hop') return send(200, 'text/html; charset=utf-8', HOP_PAGE(`http://127.0.0.1:${(server.address() as AddressInfo).port}/whoami`));
    if (urlPath === '/history') return send(200, 'text/html; charset=utf-8', HISTORY_PAGE);
    if (urlPath === '/whoami') return send(200, 'text/html; charset=utf-8', WHOAMI_PAGE);
    if (urlPath === '/logout') return send(200, 'text/html; charset=utf-8', LOGOUT_PAGE);
    if (urlPath === '/api/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const { user, password } = JSON.parse(body || '{}') as { user?: string; password?: string };
        if (!user || passwords[user] !== password) return send(401, 'application/json', '{}');
        const sid = randomBytes(12).toString('hex');
        const bearer = randomBytes(12).toString('hex');
        sids.set(sid, user);
        bearers.set(bearer, user);
        send(200, 'application/json', JSON.stringify({ token: bearer, user }), {
          'set-cookie': `sid=${sid}; HttpOnly; Path=/; SameSite=Lax; Max-Age=86400`,
        });
      });
      return;
    }
    if (urlPath === '/api/me') {
      const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const byCookie = sid ? sids.get(sid) : undefined;
      const byBearer = bearer ? bearers.get(bearer) : undefined;
      const user = byCookie && byCookie === byBearer ? byCookie : undefined;
      return send(200, 'application/json', JSON.stringify({ user, cookie: !!byCookie, bearer: !!byBearer }));
    }
    send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (p: string) => origin + p,
    passwords,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
