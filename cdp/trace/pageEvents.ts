import type { CdpHandlers } from '../types';
import type { TraceClock } from './clock';
import type { ConsoleEvent, PageEventEvent } from './format';

/**
 * Console messages and uncaught page errors, as the viewer's Console tab
 * reads them: `console` lines, and `event` lines with method `pageError`.
 * Sources: Runtime.consoleAPICalled, Log.entryAdded (browser-side messages
 * such as failed loads) and Runtime.exceptionThrown.
 */
export class PageEvents {
  constructor(
    private readonly clock: TraceClock,
    private readonly pageId: string,
    private readonly emit: (event: ConsoleEvent | PageEventEvent) => void,
  ) {}

  readonly handlers: CdpHandlers = {
    'Runtime.consoleAPICalled': (p) => this.onConsole(p),
    'Log.entryAdded': (p) => this.onLog(p),
    'Runtime.exceptionThrown': (p) => this.onException(p),
  };

  private onConsole(p: any): void {
    const args = (p.args ?? []).map((arg: any) => {
      const preview = previewOf(arg);
      return 'value' in arg ? { preview, value: arg.value } : { preview };
    });
    const frame = p.stackTrace?.callFrames?.[0];
    this.emit({
      type: 'console',
      time: this.clock.now(),
      pageId: this.pageId,
      messageType: CONSOLE_TYPES[p.type] ?? p.type,
      text: args.map((a: { preview: string }) => a.preview).join(' '),
      args,
      location: { url: frame?.url ?? '', lineNumber: frame?.lineNumber ?? 0, columnNumber: frame?.columnNumber ?? 0 },
    });
  }

  private onLog(p: any): void {
    const entry = p.entry ?? {};
    this.emit({
      type: 'console',
      time: this.clock.now(),
      pageId: this.pageId,
      messageType: LOG_LEVELS[entry.level] ?? 'log',
      text: String(entry.text ?? ''),
      args: [],
      location: { url: entry.url ?? '', lineNumber: entry.lineNumber ?? 0, columnNumber: 0 },
    });
  }

  private onException(p: any): void {
    const details = p.exceptionDetails ?? {};
    const exception = details.exception ?? {};
    const stack: string = exception.description ?? details.text ?? 'Error';
    const firstLine = stack.split('\n')[0];
    const name: string = exception.className ?? (firstLine.match(/^(\w*Error)\b/)?.[1] || 'Error');
    const message = firstLine.startsWith(name + ': ') ? firstLine.slice(name.length + 2) : firstLine;
    this.emit({
      type: 'event',
      time: this.clock.now(),
      class: 'BrowserContext',
      method: 'pageError',
      params: {
        error: { error: { message, name, stack } },
        location: { url: details.url ?? '', line: details.lineNumber ?? 0, column: details.columnNumber ?? 0 },
      },
      pageId: this.pageId,
    });
  }
}

const CONSOLE_TYPES: Record<string, string> = { warning: 'warning', assert: 'assert', log: 'log' };
const LOG_LEVELS: Record<string, string> = { verbose: 'debug', info: 'info', warning: 'warning', error: 'error' };

function previewOf(arg: any): string {
  if ('value' in arg) return typeof arg.value === 'string' ? arg.value : JSON.stringify(arg.value);
  if (arg.unserializableValue) return String(arg.unserializableValue);
  if (arg.type === 'undefined') return 'undefined';
  return String(arg.description ?? arg.className ?? arg.type);
}
