/**
 * cdp/types.ts's CdpSession is typed from devtools-protocol's ProtocolMapping
 * and must still take both clients cdp/ is used with: Puppeteer's CDPSession
 * and a chrome-remote-interface client. Compiled here with the TypeScript
 * compiler (the test run itself does not type-check), with a session that
 * does not fit as the control.
 */
import * as path from 'path';
import * as ts from 'typescript';

const REPO = path.join(__dirname, '..', '..');
const PROBE = path.join(REPO, 'test', 'architecture', '__cdpSessionFit.ts');

function diagnosticsOf(source: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(REPO, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const options = { ...parsed.options, noEmit: true, declaration: false };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === PROBE ? source : readFile(file));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => path.resolve(file) === PROBE || fileExists(file);
  const program = ts.createProgram([PROBE], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(PROBE)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]);
}

const IMPORTS = `
import type { CDPSession } from 'puppeteer-core';
import type CDP from 'chrome-remote-interface';
import type { CdpSession } from '../../cdp/types';
declare const puppeteerSession: CDPSession;
declare const remoteInterface: CDP.Client;
`;

test("Puppeteer's CDPSession and a chrome-remote-interface client are both a CdpSession", () => {
  expect(
    diagnosticsOf(`${IMPORTS}
export const fromPuppeteer: CdpSession = puppeteerSession;
export const fromRemoteInterface: CdpSession = remoteInterface;
export async function typed(session: CdpSession): Promise<number> {
  const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: 'F', worldName: 'w' });
  session.on?.('Page.frameNavigated', (event) => void event.frame.id);
  return executionContextId;
}
`),
  ).toEqual([]);
});

test('a session whose commands do not match the protocol is refused, and so are wrong parameters and results', () => {
  const found = diagnosticsOf(`${IMPORTS}
export const wrongShape: CdpSession = { send: (method: number) => Promise.resolve(method) };
export async function misuse(session: CdpSession): Promise<string> {
  await session.send('Page.createIsolatedWorld', { frameId: 7 });
  const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: 'F' });
  return executionContextId;
}
`);
  expect(found).toEqual([
    expect.stringMatching(/is not assignable to type '<M extends CdpCommand>/),
    expect.stringMatching(/not assignable to type .string./),
    expect.stringMatching(/not assignable to type .string./),
  ]);
}, 60_000);
