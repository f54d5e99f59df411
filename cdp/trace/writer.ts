import { NETWORK_ENTRY, TRACE_ENTRY, toJsonLines, type NetworkEvent, type ResourceSnapshot, type TraceEvent } from './format';
import type { ResourceStore } from './resourceStore';
import { maskSecretsInJson, type TraceSecret } from './redaction';

/**
 * Assembles the archive the viewer loads: `trace.trace` (one JSON event per
 * line, context-options first), `trace.network` (one resource-snapshot per
 * line) and the content-addressed blobs under `resources/`.
 */
export async function writeTraceZip(
  events: readonly TraceEvent[],
  network: readonly ResourceSnapshot[],
  store: ResourceStore,
  secrets: readonly TraceSecret[] = [],
): Promise<Buffer> {
  // Loaded on the first trace, not at start-up: a server that never traces never pays for it.
  const { default: JSZip } = await import('jszip');
  const zip = new JSZip();
  // The secrets' values are masked in the events' text (redaction.ts): action parameters, snapshots, URLs, bodies.
  const masked = (json: string) => (secrets.length ? maskSecretsInJson(json, secrets) : json);
  zip.file(TRACE_ENTRY, masked(toJsonLines(events)));
  zip.file(NETWORK_ENTRY, masked(toJsonLines(network.map((snapshot): NetworkEvent => ({ type: 'resource-snapshot', snapshot })))));
  for (const [path, bytes] of store.entries()) {
    // Already-compressed media gains nothing from deflate; skip the CPU.
    const compressed = !/\.(jpe?g|png|gif|webp|avif|woff2?)$/i.test(path);
    zip.file(path, bytes, { compression: compressed ? 'DEFLATE' : 'STORE', binary: true });
  }
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 6 } });
}
