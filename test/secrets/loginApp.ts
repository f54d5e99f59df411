/**
 * The test app for secrets (test/secrets/): a login page with a text field
 * and a password field posting a form, which fetches an API with a bearer
 * token (from its URL's fragment) and sets a session cookie; and a page that
 * echoes what is typed. Served on 127.0.0.1.
 */
import { servePages, type PageServer } from '../helpers/browser';

export const PASSWORD = 'Tr0ub4dor&3-pass word';
export const USER = 'alice.secret-user@example.com';
export const BEARER = 'tok-9f3a1c77e2b04d5a';
export const SESSION_COOKIE = 'sess-51d0c0ffee7e4a2b';

const LOGIN = `<!doctype html>
<html><head><title>Sign in</title><style>
  body { margin: 0; font: 16px sans-serif; }
  input { position: absolute; left: 20px; width: 300px; height: 30px; box-sizing: border-box; font: 16px sans-serif; }
  #user { top: 20px; } #password { top: 70px; } #go { position: absolute; left: 20px; top: 120px; }
</style></head>
<body data-state="login">
  <form method="post" action="/login">
    <input id="user" name="user" type="text" aria-label="User">
    <input id="password" name="password" type="password" aria-label="Password">
    <button id="go" type="submit">Sign in</button>
  </form>
  <script>
    fetch('/api/me', { headers: { Authorization: 'Bearer ' + location.hash.slice(1) } });
  </script>
</body></html>`;

const ECHO = `<!doctype html><html><body data-state="echo">
  <input id="user" type="text" aria-label="User"><p id="hello"></p><button id="clear" onclick="document.getElementById('hello').textContent = ''">Clear</button>
  <script>document.getElementById('user').addEventListener('input', (e) => { document.getElementById('hello').textContent = 'Hello ' + e.target.value; });</script>
</body></html>`;

/** A rich-text field (an editable element): its text is the field's own, not the page's. */
const EDITOR = `<!doctype html><html><body data-state="editor" style="margin:0">
  <div id="note" contenteditable="true" aria-label="Note" style="position:absolute;left:20px;top:20px;width:300px;height:40px;font:16px sans-serif"></div>
</body></html>`;

/** A page that copies what is typed into a field of a same-origin frame. */
const FRAMED = `<!doctype html><html><body data-state="framed" style="margin:0">
  <input id="user" aria-label="User" style="position:absolute;left:20px;top:20px;width:300px;height:30px">
  <iframe id="frame" src="/frame-field.html" style="position:absolute;left:20px;top:100px;width:300px;height:80px;border:0"></iframe>
  <script>document.getElementById('user').addEventListener('input', (e) => { frames[0].document.getElementById('copy').value = e.target.value; });</script>
</body></html>`;

/** The app's pages and its API. */
export function serveLoginApp(): Promise<PageServer> {
  return servePages(__dirname, {
    '/login.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `session=${SESSION_COOKIE}; Path=/` });
      res.end(LOGIN);
    },
    '/editor.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(EDITOR);
    },
    '/framed.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(FRAMED);
    },
    '/frame-field.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!doctype html><body style="margin:0"><input id="copy" aria-label="Copy" style="position:absolute;left:10px;top:10px;width:200px;height:30px"></body>',
      );
    },
    '/echo.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(ECHO);
    },
    '/api/me': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"me":"someone"}');
    },
    '/login': (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><body data-state="signed-in"><h1 style="margin-top: 200px">Welcome</h1></body>');
      });
    },
  });
}
