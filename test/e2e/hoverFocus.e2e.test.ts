/**
 * hover and focus end to end, through the built server and the MCP SDK
 * client: tools/list advertises them, a screenshot shows the `:hover`,
 * `:focus` and `:focus-visible` styles they bring about, and the interaction
 * trace records each as the Playwright call (Frame.hover, Frame.focus) with
 * its input event and before, action and after snapshots, as it does a click.
 */
import * as fs from 'fs';
import JSZip from 'jszip';
import { servePages, type PageServer } from '../helpers/browser';
import { decodePng } from '../../src/png/decode';
import { captureArgs, makeRunRoot, startServer, PAGES, type RunningServer } from './harness';

jest.setTimeout(120_000);

let pages: PageServer;
let server: RunningServer;
let root: string;

beforeAll(async () => {
  pages = await servePages(PAGES);
  server = await startServer();
  root = makeRunRoot('hover-focus');
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const VIEWPORT = { width: 400, height: 300, devicePixelRatio: 1, colorScheme: 'light' };
const ACTIONS = [
  { do: 'hover', selector: '#card' },
  { do: 'focus', selector: '#email' },
];

test('tools/list names hover and focus among the actions', async () => {
  const { tools } = await server.client.listTools();
  const action = (tools[0].inputSchema.properties as any).actions.items.properties;
  expect(action.do.description).toMatch(/^one of click, hover, focus, fill, /);
  expect(action.selector.description).toContain('required for click, hover, focus, fill');
});

test('a screenshot after hover and focus shows the :hover, :focus and :focus-visible styles', async () => {
  const result = await server.capture(captureArgs(root, pages.url('/hover-focus.html'), 'hover-focus.png', { viewport: VIEWPORT, actions: ACTIONS }));
  expect(result).toMatchObject({ result: 'captured', error: '', observed_state: 'hover=true;focus=true;visible=true' });
  const { header, pixels } = decodePng(fs.readFileSync(result.written_path));
  const rgb = (x: number, y: number) => [...pixels.subarray(y * header.rowBytes + x * header.pixelBytes, y * header.rowBytes + x * header.pixelBytes + 3)];
  expect({ card: rgb(100, 60), field: rgb(280, 60), outline: rgb(280, 37) }).toEqual({ card: [255, 0, 0], field: [0, 128, 0], outline: [255, 165, 0] });
});

test('the trace records hover and focus as Frame.hover and Frame.focus, each with its input event and snapshots', async () => {
  const result = await server.capture(
    captureArgs(root, pages.url('/hover-focus.html'), 'hover-focus.trace.zip', { type: 'interaction trace', viewport: VIEWPORT, actions: ACTIONS }),
  );
  expect(result).toMatchObject({ result: 'captured', observed_state: 'hover=true;focus=true;visible=true' });
  const zip = await JSZip.loadAsync(fs.readFileSync(result.written_path));
  const events = (await zip.file('trace.trace')!.async('string'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const calls = events.filter((e) => e.type === 'before' && e.method !== 'goto');
  expect(calls.map((e) => [e.class, e.method, e.params])).toEqual([
    ['Frame', 'hover', { selector: '#card' }],
    ['Frame', 'focus', { selector: '#email' }],
  ]);
  for (const call of calls) {
    const of = (type: string) => events.filter((e) => e.type === type && (e.callId ?? e.snapshot?.callId) === call.callId);
    expect(of('after')).toEqual([expect.not.objectContaining({ error: expect.anything() })]);
    expect(of('input')).toHaveLength(1);
    expect(of('frame-snapshot').map((e) => e.snapshot.phase)).toEqual(['before', 'action', 'after']);
  }
  // The hover's input event points where the mouse went: the card's centre.
  const hoverInput = events.find((e) => e.type === 'input' && e.callId === calls[0].callId);
  expect(hoverInput.point).toEqual({ x: 100, y: 60 });
});
