/**
 * A local stand-in for a browser farm (browserless v2 and its kind), as it
 * behaves at the protocol edge, in front of a real Chromium the test started
 * with --remote-debugging-port=0:
 *
 * - `ws://127.0.0.1:PORT/chromium?token=…` (or `/`): the WebSocket upgrade is
 *   checked like a farm checks it — a missing or wrong token is answered
 *   `HTTP 401`, another path `404` — then relayed byte for byte to the
 *   browser's own /devtools/browser/<id> endpoint.
 * - A concurrency limit and a queue, as browserless counts them: a
 *   connection beyond `concurrency` waits (its upgrade unanswered) until a
 *   session ends; one beyond `concurrency + queue` is answered `HTTP 429`
 *   (with Retry-After when `retryAfterSeconds` is set).
 * - `answerEveryUpgrade(status)`: every upgrade is answered with that status
 *   (503 for a farm that is starting, 200 for an address that is no
 *   WebSocket endpoint), until cleared.
 * - `down(ms)`: the farm restarts — every session is cut at once, the
 *   listener closed (connections refused), and it listens again on the same
 *   port after `ms`.
 * - `GET /json/version` (token checked): a webSocketDebuggerUrl pointing back
 *   at the farm, without the token, as browserless answers.
 *
 * It counts what it did, so a test can check what reached it.
 */
import * as http from 'http';
import * as net from 'net';

export interface StandInFarmOptions {
  /** The real browser's DevTools port on 127.0.0.1 and its /devtools/browser/<id> path. */
  browserPort: number;
  browserPath: string;
  /** The token every request must carry as ?token= (undefined: none asked). */
  token?: string;
  /** Sessions at once (default: no limit). */
  concurrency?: number;
  /** Connections held beyond `concurrency` until a session ends (default 0). */
  queue?: number;
  /** Sent as Retry-After with a 429 (default: none, as browserless). */
  retryAfterSeconds?: number;
}

export interface FarmStats {
  /** WebSocket upgrades received. */
  upgrades: number;
  /** Sessions relayed to the browser. */
  sessions: number;
  /** Sessions running at once, at most. */
  maxRunning: number;
  /** Upgrades answered with a status instead of a session, by status. */
  answered: Record<number, number>;
  /** /json/version requests, and how many carried the right token. */
  versionRequests: number;
  versionWithToken: number;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  401: 'Unauthorized',
  404: 'Not Found',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

function answer(socket: net.Socket, status: number, body: string, headers: Record<string, string> = {}): void {
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const text = STATUS_TEXT[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`,
  );
}

export class StandInFarm {
  port = 0;
  readonly stats: FarmStats = { upgrades: 0, sessions: 0, maxRunning: 0, answered: {}, versionRequests: 0, versionWithToken: 0 };
  private server: http.Server | null = null;
  private forced: { status: number; retryAfterSeconds?: number } | null = null;
  private running = 0;
  private readonly queued: Array<{ socket: net.Socket; start: () => void }> = [];
  /** Every socket open now (HTTP, queued, relayed, and the browser side), so a restart can cut them all. */
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly options: StandInFarmOptions) {}

  get token(): string | undefined {
    return this.options.token;
  }

  /** The farm's WebSocket endpoint, with a token (the farm's own by default). */
  wsUrl(token: string | undefined = this.options.token, path = '/chromium'): string {
    return `ws://127.0.0.1:${this.port}${path}${token !== undefined ? `?token=${encodeURIComponent(token)}` : ''}`;
  }

  /** The farm's http address, its token in the query (the form that asks /json/version). */
  httpUrl(token: string | undefined = this.options.token): string {
    return `http://127.0.0.1:${this.port}/${token !== undefined ? `?token=${encodeURIComponent(token)}` : ''}`;
  }

  async start(): Promise<this> {
    await this.listen(this.port);
    return this;
  }

  /** Every upgrade is answered with `status` (and Retry-After, if given) instead of a session (null: serve again). */
  answerEveryUpgrade(status: number | null, retryAfterSeconds?: number): void {
    this.forced = status === null ? null : { status, retryAfterSeconds };
  }

  /** Restarts: every session cut now, connections refused for `ms`, then back on the same port. */
  async down(ms: number): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.queued.length = 0;
    await closed;
    await new Promise((resolve) => setTimeout(resolve, ms));
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private async listen(port: number): Promise<void> {
    const server = http.createServer((req, res) => this.onRequest(req, res));
    server.on('connection', (socket) => this.track(socket));
    server.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket as net.Socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  private tokenOk(url: URL): boolean {
    return this.options.token === undefined || url.searchParams.get('token') === this.options.token;
  }

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (url.pathname === '/json/version') {
      this.stats.versionRequests++;
      if (!this.tokenOk(url)) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('Bad or missing authentication.');
        return;
      }
      this.stats.versionWithToken++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ Browser: 'StandInFarm/1.0', webSocketDebuggerUrl: `ws://127.0.0.1:${this.port}` }));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  }

  private refuse(socket: net.Socket, status: number, body: string, headers: Record<string, string> = {}): void {
    this.stats.answered[status] = (this.stats.answered[status] ?? 0) + 1;
    answer(socket, status, body, headers);
  }

  private onUpgrade(req: http.IncomingMessage, socket: net.Socket, head: Buffer): void {
    this.stats.upgrades++;
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (!this.tokenOk(url)) return this.refuse(socket, 401, 'Bad or missing authentication.');
    const forced = this.forced;
    if (forced) {
      const headers: Record<string, string> = forced.retryAfterSeconds !== undefined ? { 'Retry-After': String(forced.retryAfterSeconds) } : {};
      return this.refuse(socket, forced.status, forced.status === 200 ? 'This is a web page.' : 'The farm is starting.', headers);
    }
    if (url.pathname !== '/chromium' && url.pathname !== '/') return this.refuse(socket, 404, 'Not Found');
    const concurrency = this.options.concurrency ?? Infinity;
    const inFarm = this.running + this.queued.length;
    if (inFarm >= concurrency + (this.options.queue ?? 0)) {
      const retry = this.options.retryAfterSeconds;
      return this.refuse(socket, 429, 'Too many requests', retry !== undefined ? { 'Retry-After': String(retry) } : {});
    }
    const start = () => this.relay(req, socket, head);
    if (this.running < concurrency) return start();
    const entry = { socket, start };
    this.queued.push(entry);
    socket.once('close', () => {
      const at = this.queued.indexOf(entry);
      if (at >= 0) this.queued.splice(at, 1);
    });
  }

  /** The upgrade, with its path made the browser's own, relayed byte for byte. */
  private relay(req: http.IncomingMessage, socket: net.Socket, head: Buffer): void {
    if (socket.destroyed) return this.next();
    this.running++;
    this.stats.sessions++;
    this.stats.maxRunning = Math.max(this.stats.maxRunning, this.running);
    const upstream = net.connect(this.options.browserPort, '127.0.0.1');
    this.track(upstream);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      socket.destroy();
      upstream.destroy();
      this.running--;
      this.next();
    };
    upstream.once('connect', () => {
      const lines = [`GET ${this.options.browserPath} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i];
        lines.push(name.toLowerCase() === 'host' ? `Host: 127.0.0.1:${this.options.browserPort}` : `${name}: ${req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    socket.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  }

  /** A session ended: the next queued connection gets it. */
  private next(): void {
    const concurrency = this.options.concurrency ?? Infinity;
    while (this.running < concurrency && this.queued.length) this.queued.shift()!.start();
  }
}

/** The farm in front of a browser started by test/batch/browsers.ts (its port and ws endpoint). */
export function farmFor(
  browser: { port: number; wsEndpoint: string },
  options: Omit<StandInFarmOptions, 'browserPort' | 'browserPath'> = {},
): Promise<StandInFarm> {
  return new StandInFarm({ ...options, browserPort: browser.port, browserPath: new URL(browser.wsEndpoint).pathname }).start();
}
