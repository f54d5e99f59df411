/**
 * The one thing every raw-protocol module in cdp/ needs: a way to send a
 * Chrome DevTools Protocol command on a page's session. Puppeteer's
 * CDPSession and a chrome-remote-interface client both fit, so cdp/ code does
 * not depend on how the browser was launched or attached.
 */
export interface CdpSession {
  send(method: any, params?: any): Promise<any>;
  on?(event: any, handler: (params: any) => void): unknown;
  off?(event: any, handler: (params: any) => void): unknown;
}
