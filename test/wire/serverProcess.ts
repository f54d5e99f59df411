/**
 * The server as a separate process, spoken to in raw bytes: spawn the built
 * bin (or the fake-provider launcher), write frames in either framing, and
 * read back every reply together with the framing it came in.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const REPO = path.resolve(__dirname, '..', '..');
export const BIN = path.join(REPO, 'dist', 'src', 'bin.js');
export const FAKE_SERVER = path.join(REPO, 'test', 'helpers', 'fakeServer.js');

export function assertBuilt(): void {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` before the wire tests`);
}

/** A run root (evidence/ and plan.md made) under a fresh temp folder `base`, for a wire test's servers to capture into. */
export function makeRunRoot(prefix: string): { base: string; runRoot: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const runRoot = path.join(base, 'run');
  fs.mkdirSync(path.join(runRoot, 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '');
  return { base, runRoot };
}

export type Framing = 'newline' | 'content-length';
export interface Reply {
  framing: Framing;
  message: Record<string, unknown>;
  /** The frame's JSON text as the server wrote it. */
  text: string;
}

/** Environment for a child: ours minus the run-root variable, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'DESIGN_PLAYBOOK_RUN_ROOT' && !k.startsWith('FAKE_PROVIDER_')) env[k] = v;
  return { ...env, ...extra };
}

export function newlineFrame(message: unknown): string {
  return JSON.stringify(message) + '\n';
}

export function contentLengthFrame(message: unknown | string): string {
  const body = typeof message === 'string' ? message : JSON.stringify(message);
  return `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`;
}

/**
 * Splits stdout into frames. Throws on anything that is neither a
 * Content-Length frame nor a newline-terminated JSON line: stdout must carry
 * protocol only.
 */
export function parseFrames(buffer: Buffer): { replies: Reply[]; rest: Buffer } {
  const replies: Reply[] = [];
  let rest = buffer;
  for (;;) {
    if (!rest.length) break;
    const head = rest.subarray(0, 15).toString('latin1');
    if (head.toLowerCase() === 'content-length:') {
      const text = rest.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) break;
      const match = /^content-length:\s*(\d+)\s*$/im.exec(text.slice(0, end));
      if (!match) throw new Error(`bad header on stdout: ${JSON.stringify(text.slice(0, end))}`);
      const length = Number(match[1]);
      if (rest.length < end + 4 + length) break;
      const body = rest.subarray(end + 4, end + 4 + length).toString('utf8');
      replies.push({ framing: 'content-length', message: JSON.parse(body), text: body });
      rest = rest.subarray(end + 4 + length);
      continue;
    }
    if ('content-length:'.startsWith(head.toLowerCase())) break; // header still arriving
    const newline = rest.indexOf(0x0a);
    if (newline < 0) break;
    const line = rest.subarray(0, newline).toString('utf8');
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      throw new Error(`non-protocol bytes on stdout: ${JSON.stringify(line)}`);
    }
    replies.push({ framing: 'newline', message, text: line });
    rest = rest.subarray(newline + 1);
  }
  return { replies, rest };
}

export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private stdoutBytes = Buffer.alloc(0);
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: Array<() => void> = [];

  constructor(script: string, options: { cwd: string; env?: Record<string, string> }) {
    this.child = spawn(process.execPath, [script], { cwd: options.cwd, env: childEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.stdoutBytes = Buffer.concat([this.stdoutBytes, chunk]);
      this.notify();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => this.notify());
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  get rawStdout(): Buffer {
    return this.stdoutBytes;
  }

  /** Every complete reply so far (throws if stdout carries anything but protocol). */
  replies(): Reply[] {
    return parseFrames(this.stdoutBytes).replies;
  }

  write(bytes: string | Buffer): void {
    this.child.stdin.write(bytes);
  }

  end(): void {
    this.child.stdin.end();
  }

  /** Waits until `predicate(replies)` holds (or the process exits / time runs out). */
  async waitFor(predicate: (replies: Reply[]) => boolean, timeoutMs = 20_000): Promise<Reply[]> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => (exited = true));
    for (;;) {
      const replies = this.replies();
      if (predicate(replies)) return replies;
      if (exited) throw new Error(`server exited before the expected replies; got ${JSON.stringify(replies)}; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for replies; got ${JSON.stringify(replies)}; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async reply(id: unknown, timeoutMs?: number): Promise<Reply> {
    const replies = await this.waitFor((rs) => rs.some((r) => r.message.id === id), timeoutMs);
    return replies.find((r) => r.message.id === id)!;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

export const INIT_PARAMS = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-wire-test', version: '0' } };
