/**
 * The one thing every raw-protocol module in cdp/ needs: a way to send a
 * Chrome DevTools Protocol command on a page's session, typed by the
 * protocol's own mapping (devtools-protocol, the package Puppeteer's types
 * come from), so a command's parameters and its answer are checked where
 * they are used. Puppeteer's CDPSession and a chrome-remote-interface client
 * both fit, so cdp/ code does not depend on how the browser was launched or
 * attached (test/architecture/cdpSession.test.ts compiles both against it).
 */
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping';

export type CdpCommand = keyof ProtocolMapping.Commands;
export type CdpParams<M extends CdpCommand> = ProtocolMapping.Commands[M]['paramsType'][0];
export type CdpReturn<M extends CdpCommand> = ProtocolMapping.Commands[M]['returnType'];
export type CdpEvent = keyof ProtocolMapping.Events;
/** Each event's parameters by name (undefined for an event without any). */
export type CdpEvents = { [E in CdpEvent]: ProtocolMapping.Events[E][0] };
export type CdpEventParams<E extends CdpEvent> = CdpEvents[E];
/** Handlers for some of a session's events, by event name. */
export type CdpHandlers = { [E in CdpEvent]?: (params: CdpEvents[E]) => void };

export interface CdpSession {
  send<M extends CdpCommand>(method: M, params?: CdpParams<M>): Promise<CdpReturn<M>>;
  on?<E extends CdpEvent>(event: E, handler: (params: CdpEventParams<E>) => void): unknown;
  off?<E extends CdpEvent>(event: E, handler: (params: CdpEventParams<E>) => void): unknown;
}

/** A remote object as the protocol describes it (what Runtime.evaluate and callFunctionOn answer with). */
export type { Protocol } from 'devtools-protocol/types/protocol';
