/**
 * Stdio transport for the SDK server that reads both framings existing
 * clients use: newline-delimited JSON and LSP-style `Content-Length:` frames.
 * Each reply goes out in the framing its request came in. Frames that do not
 * parse (-32700) or are not JSON objects (-32600) are answered here, and the
 * server keeps serving; everything else goes to the SDK's JSON-RPC dispatch.
 * Frames are parsed by src/common/pythonJson.ts, so the tool's checks can tell `1.0`
 * from `1` as the original (Python) does.
 *
 * End of input is the client going away: what it asked that is answered at
 * once still goes out, then the transport closes, and the SDK cancels every
 * call still at work (no reply for them, as for `notifications/cancelled`).
 */
import type { Readable, Writable } from 'stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, JSONRPCNotificationSchema, JSONRPCRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { parseJsonText } from '../common/pythonJson';
import { ASSUMED_JSONRPC_VERSION, dropNullKey } from '../contract/compatibility';
import { echoJson } from '../contract/captureContract';
import { NOTICE_BEFORE_ANSWER_MS } from '../common/time';

/**
 * The -32602 message for a request a schema refused: the method, the field's
 * path from the request (`params.capabilities`), what it must be.
 */
export function invalidParamsMessage(method: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const issue = issues[0];
  return `Invalid params for ${method}: ${issue.path.map(String).join('.')}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

type Framing = 'newline' | 'content-length';

const HEADER_END = /\r?\n\r?\n/;
const CONTENT_LENGTH = /^content-length:\s*(\d+)\s*$/im;

export class DualFramingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private buffer = Buffer.alloc(0);
  private lastFraming: Framing = 'newline';
  private readonly framingById = new Map<string | number, Framing>();
  private started = false;
  private closed = false;
  /** Requests received and not yet answered (nor cancelled): shutdown waits for their replies. */
  private readonly pending = new Set<string | number>();
  private inputEnded = false;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('DualFramingStdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.buffer = Buffer.concat([this.buffer, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
    this.drain();
  };

  private readonly onInputError = (error: Error) => this.onerror?.(error);

  private readonly onEnd = () => {
    if (this.inputEnded) return;
    this.inputEnded = true;
    // A last newline-less frame still counts.
    if (this.buffer.length && this.buffer.toString('utf8').trim()) {
      const rest = this.buffer;
      this.buffer = Buffer.alloc(0);
      this.handleFrame(rest.toString('utf8'), 'newline');
    }
    // One turn for the replies already on their way (a ping, a refusal); a capture still at work is cancelled by the close.
    setImmediate(() => void this.close());
  };

  private maybeClose(): void {
    if (this.pending.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    if (this.inputEnded && this.pending.size === 0) void this.close();
  }

  /** Resolves once every request received so far has been answered or cancelled (shutdown waits for it). */
  whenIdle(): Promise<void> {
    if (this.pending.size === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private drain(): void {
    for (;;) {
      // Skip blank lines between frames.
      let start = 0;
      while (
        start < this.buffer.length &&
        (this.buffer[start] === 0x0a || this.buffer[start] === 0x0d || this.buffer[start] === 0x20 || this.buffer[start] === 0x09)
      )
        start++;
      if (start) this.buffer = this.buffer.subarray(start);
      if (!this.buffer.length) return;

      const head = this.buffer.subarray(0, Math.min(this.buffer.length, 16)).toString('latin1').toLowerCase();
      if ('content-length:'.startsWith(head) && head.length < 15) return; // wait for the header name
      if (head.startsWith('content-length:') || head.startsWith('content-type:')) {
        const text = this.buffer.toString('latin1');
        const end = HEADER_END.exec(text);
        if (!end) return;
        const headers = text.slice(0, end.index);
        const bodyStart = end.index + end[0].length;
        const match = CONTENT_LENGTH.exec(headers);
        if (!match) {
          this.buffer = this.buffer.subarray(bodyStart);
          this.sendError(null, -32700, 'Parse error: Content-Length header missing', 'content-length');
          continue;
        }
        const length = Number(match[1]);
        if (this.buffer.length < bodyStart + length) return;
        const body = this.buffer.subarray(bodyStart, bodyStart + length).toString('utf8');
        this.buffer = this.buffer.subarray(bodyStart + length);
        this.handleFrame(body, 'content-length');
        continue;
      }
      const newline = this.buffer.indexOf(0x0a);
      if (newline < 0) return;
      const line = this.buffer.subarray(0, newline).toString('utf8').replace(/\r$/, '');
      this.buffer = this.buffer.subarray(newline + 1);
      this.handleFrame(line, 'newline');
    }
  }

  private handleFrame(text: string, framing: Framing): void {
    this.lastFraming = framing;
    let value: unknown;
    try {
      // A UTF-8 byte order mark (some Windows clients write one) is not part of the JSON.
      value = parseJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (err) {
      this.sendError(null, -32700, `Parse error: ${(err as Error).message}`, framing);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.sendError(null, -32600, 'Invalid Request: a JSON-RPC message must be a JSON object', framing);
      return;
    }
    const record = value as Record<string, unknown>;
    if (record.jsonrpc === undefined) record.jsonrpc = ASSUMED_JSONRPC_VERSION;
    // `params: null` is no params, as the original read it (JSON-RPC would have the key left out).
    dropNullKey(record, 'params');
    const id = typeof record.id === 'string' || typeof record.id === 'number' ? record.id : null;
    // The envelope first (-32600); then what an object `params` holds: the SDK routes only messages its schema
    // accepts, so a request whose params it refuses (`_meta: 5`) is answered here, -32602 naming the field.
    const envelope = typeof record.params === 'object' && record.params !== null && !Array.isArray(record.params) ? { ...record, params: {} } : record;
    if (!JSONRPCMessageSchema.safeParse(envelope).success) {
      this.sendError(id, -32600, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response', framing);
      return;
    }
    if (typeof record.method === 'string') {
      const full = (id !== null ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(record);
      if (!full.success) {
        if (id !== null) this.sendError(id, ErrorCode.InvalidParams, invalidParamsMessage(record.method, full.error.issues), framing);
        return;
      }
    }
    if (id !== null && typeof record.method === 'string') {
      this.framingById.set(id, framing);
      this.pending.add(id);
    }
    try {
      // The parsed object itself, not a validated copy: its containers carry the float-literal marks.
      this.onmessage?.(record as JSONRPCMessage);
    } catch (err) {
      this.onerror?.(err as Error);
    }
    // A cancelled request gets no reply (the SDK drops it): nothing waits for one.
    if (record.method === 'notifications/cancelled') this.forget((record.params as { requestId?: unknown } | undefined)?.requestId);
  }

  private forget(id: unknown): void {
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.pending.has(id)) return;
    this.pending.delete(id);
    this.framingById.delete(id);
    this.maybeClose();
  }

  private sendError(id: string | number | null, code: number, message: string, framing: Framing): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } }, framing);
  }

  /** Set while a notification written since the last answer may still share the answer's read at the client. */
  private noticeWritten: Promise<number> | null = null;

  private write(message: unknown, framing: Framing, written?: () => void): void {
    if (this.closed) return written?.();
    const json = echoJson(message);
    const data = framing === 'content-length' ? `Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}` : json + '\n';
    this.output.write(data, written);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = (message as { id?: string | number }).id;
    const isResponse = id !== undefined && !('method' in message);
    let framing = this.lastFraming;
    if (isResponse && this.framingById.has(id)) {
      framing = this.framingById.get(id)!;
      this.framingById.delete(id);
    }
    if (!isResponse && 'method' in message && id === undefined) {
      this.noticeWritten = new Promise<number>((resolve) => this.write(message, framing, () => resolve(Date.now())));
      return;
    }
    if (isResponse && this.noticeWritten) {
      const notice = this.noticeWritten;
      this.noticeWritten = null;
      const gap = NOTICE_BEFORE_ANSWER_MS - (Date.now() - (await notice));
      if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
    }
    this.write(message, framing);
    if (isResponse) {
      this.pending.delete(id);
      this.maybeClose();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    for (const wake of this.idleWaiters.splice(0)) wake();
    this.onclose?.();
  }
}
