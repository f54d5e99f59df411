/**
 * Playwright's own trace viewer (playwright-core, a devDependency) served on
 * 127.0.0.1: the server that `show-trace --host/--port` starts, without the
 * part that opens a browser. Tests load the returned URL in their own
 * headless Chromium.
 */
import * as path from 'path';

interface ViewerHttpServer {
  urlPrefix(purpose: 'precise' | 'human-readable'): string;
  stop(): Promise<void>;
}

interface TraceViewerApi {
  startTraceViewerServer(options: { host: string; port: number; allowedFileRoots: () => string[] }): Promise<ViewerHttpServer>;
  traceViewerPath(traceUrl: string, options: Record<string, unknown>): string;
}

export interface TraceViewer {
  /** Viewer page URL with the trace preloaded. */
  url: string;
  close(): Promise<void>;
}

export async function startTraceViewer(zipPath: string): Promise<TraceViewer> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { server } = require('playwright-core/lib/coreBundle') as { server: TraceViewerApi };
  const viewer = await server.startTraceViewerServer({
    host: '127.0.0.1',
    port: 0,
    // The viewer serves trace files only from these folders.
    allowedFileRoots: () => [path.dirname(zipPath)],
  });
  const traceUrl = `file?path=${encodeURIComponent(zipPath)}`;
  return {
    url: viewer.urlPrefix('precise') + server.traceViewerPath(traceUrl, {}),
    close: () => viewer.stop(),
  };
}
