/**
 * Which parts of an address are secret and how it reads hidden (src/common/redact.ts),
 * and the small rules of the connection module that go with it: which form
 * an address is (the hint follows it), Retry-After, which causes are worth
 * waiting for.
 */
import { isSecretParam, redactKnownSecrets, redactSecrets, redactUrl, secretValuesOf } from '../../src/common/redact';
import { addressForm, parseRetryAfter } from '../../src/browser/fleet/endpointConnection';
import { isTransient } from '../../cdp/failureKinds';
import { parseCdpUrl } from '../../src/browser/options';

test('credential parameters, in any case and as the last part of a longer name, are secret; others are not', () => {
  for (const name of [
    'token',
    'TOKEN',
    'apiKey',
    'api_key',
    'api-key',
    'key',
    'access_token',
    'auth',
    'Authorization',
    'password',
    'secret',
    'client_secret',
    'browserless_token',
    'x-api-key',
    'sig',
    'jwt',
  ]) {
    expect([name, isSecretParam(name)]).toEqual([name, true]);
  }
  for (const name of ['timeout', 'launch', 'stealth', 'blockAds', 'monkey', 'keyboard', 'tokens_used', 'headless']) {
    expect([name, isSecretParam(name)]).toEqual([name, false]);
  }
});

test('an address reads with its credential values and userinfo hidden, everything else exactly as given', () => {
  expect(redactUrl('ws://127.0.0.1:3000/chromium?token=s3cret')).toBe('ws://127.0.0.1:3000/chromium?token=***');
  expect(redactUrl('wss://farm.example/chrome?timeout=60000&apiKey=abc&stealth')).toBe('wss://farm.example/chrome?timeout=60000&apiKey=***&stealth');
  expect(redactUrl('https://user:pa55@farm.example:443/?TOKEN=x#frag')).toBe('https://***@farm.example:443/?TOKEN=***#frag');
  expect(redactUrl('ws://tok3n@farm:3000/')).toBe('ws://***@farm:3000/');
  // No normalization: an address without secrets is the address as given (no trailing slash added).
  expect(redactUrl('http://127.0.0.1:9222')).toBe('http://127.0.0.1:9222');
  expect(redactUrl('ws://127.0.0.1:9222/devtools/browser/5c1a')).toBe('ws://127.0.0.1:9222/devtools/browser/5c1a');
  // Idempotent, and advice placeholders are not secrets.
  expect(redactUrl('ws://h/chromium?token=***')).toBe('ws://h/chromium?token=***');
  expect(redactUrl('pass ws://host:port/chromium?token=… or ?token=<token>')).toBe('pass ws://host:port/chromium?token=… or ?token=<token>');
});

test('any text: every address in it, a list of them, a bare host:port?token=, quoted or in brackets', () => {
  expect(redactSecrets("DESIGN_PLAYBOOK_CDP_URL must be … (got 'ws://a/x?token=one,ws://b/y?key=two')")).toBe(
    "DESIGN_PLAYBOOK_CDP_URL must be … (got 'ws://a/x?token=***,ws://b/y?key=***')",
  );
  expect(redactSecrets('could not attach to 127.0.0.1:3000?token=abc (--browser-url)')).toBe('could not attach to 127.0.0.1:3000?token=*** (--browser-url)');
  expect(redactSecrets('plain text without an address')).toBe('plain text without an address');
});

test("a farm's own text: the address's secret values are hidden even without their name in front", () => {
  const url = 'ws://farm:3000/chromium?token=s3cr%2Bt&launch=x';
  expect(secretValuesOf(url)).toEqual(['s3cr%2Bt', 's3cr+t']);
  expect(redactKnownSecrets('token s3cr+t is not valid (s3cr%2Bt)', url)).toBe('token *** is not valid (***)');
  expect(secretValuesOf('ws://user:pw1234@farm/')).toEqual(['user:pw1234', 'pw1234', 'user']);
});

test("parseCdpUrl keeps an address's query (bare host:port?token= too) and hides it when refusing", () => {
  expect(parseCdpUrl('127.0.0.1:3000?token=abc', '--browser-url')).toEqual({
    kind: 'browser-url',
    url: 'http://127.0.0.1:3000?token=abc',
    source: '--browser-url',
  });
  expect(parseCdpUrl(' ws://h:1/chromium?token=abc ', '--ws-endpoint').url).toBe('ws://h:1/chromium?token=abc');
  expect(() => parseCdpUrl('ftp://farm/?token=s3cret', 'DESIGN_PLAYBOOK_CDP_URL')).toThrow(
    "DESIGN_PLAYBOOK_CDP_URL must be an http://host:port browser URL or a ws:// endpoint (got 'ftp://farm/?token=***')",
  );
  expect(() => parseCdpUrl('ws://?token=s3cret', '--ws-endpoint')).toThrow(
    "--ws-endpoint must be an http://host:port browser URL or a ws:// endpoint with a host name (got 'ws://?token=***')",
  );
});

test("an address's form: a Chrome debugging address, or a farm's", () => {
  const t = (url: string) => parseCdpUrl(url, '--ws-endpoint');
  expect(addressForm(t('http://127.0.0.1:9222'), false)).toBe('chrome');
  expect(addressForm(t('ws://127.0.0.1:9222/devtools/browser/abc'), false)).toBe('chrome');
  expect(addressForm(t('ws://127.0.0.1:3000/chromium?token=x'), false)).toBe('farm');
  expect(addressForm(t('ws://127.0.0.1:3000'), false)).toBe('farm');
  expect(addressForm(t('http://127.0.0.1:3000/?token=x'), false)).toBe('farm');
  // With a connection per capture, any address is a farm's.
  expect(addressForm(t('http://127.0.0.1:9222'), true)).toBe('farm');
});

test('Retry-After in seconds or as a date; which causes are worth waiting for', () => {
  expect(parseRetryAfter('5')).toBe(5_000);
  expect(parseRetryAfter(['2', '9'])).toBe(2_000);
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3_000);
  expect(parseRetryAfter('soon')).toBeUndefined();
  expect(parseRetryAfter(undefined)).toBeUndefined();

  const http = (status: number) => ({ kind: 'http' as const, status, statusText: '', during: 'upgrade' as const });
  expect([429, 503, 502, 500, 408].map((s) => isTransient(http(s)))).toEqual([true, true, true, true, true]);
  expect([401, 403, 404, 400].map((s) => isTransient(http(s)))).toEqual([false, false, false, false]);
  expect(isTransient({ kind: 'refused', address: 'h:1', code: 'ECONNREFUSED' })).toBe(true);
  expect(isTransient({ kind: 'timeout', ms: 1 })).toBe(true);
  expect(isTransient({ kind: 'tls', code: 'EPROTO', detail: '' })).toBe(false);
  expect(isTransient({ kind: 'dns', host: 'h', code: 'ENOTFOUND' })).toBe(false);
  expect(isTransient({ kind: 'dns', host: 'h', code: 'EAI_AGAIN' })).toBe(true);
  expect(isTransient({ kind: 'not-websocket', status: 200, statusText: 'OK' })).toBe(false);
});
