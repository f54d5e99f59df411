/**
 * cdp/trace/redaction.ts: the credential headers' values masked, names kept;
 * a secret's value replaced in the trace's JSON text in each form it takes
 * there, by its mask in the same form.
 */
import { HEADER_MASK, maskSecretsInJson, traceHeaderValue } from '../../cdp/trace/redaction';

test('credential headers are masked in any case, others kept', () => {
  for (const name of ['Authorization', 'proxy-authorization', 'COOKIE', 'Set-Cookie']) expect(traceHeaderValue(name, 'Bearer abc')).toBe(HEADER_MASK);
  expect(traceHeaderValue('Content-Type', 'text/html')).toBe('text/html');
  expect(traceHeaderValue('X-Authorization-Hint', 'kept')).toBe('kept');
});

test('a value is replaced as JSON writes it, URL-encoded and form-encoded', () => {
  const value = 'p@ss "word" é';
  const secrets = [{ value, mask: '<secret PW>' }];
  const json = JSON.stringify({
    params: { value },
    url: `http://h/?pw=${encodeURIComponent(value)}`,
    lower: encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    postData: `pw=${new URLSearchParams({ v: value }).toString().slice(2)}`,
  });
  const masked = JSON.parse(maskSecretsInJson(json, secrets));
  expect(masked.params.value).toBe('<secret PW>');
  expect(new URL(masked.url).searchParams.get('pw')).toBe('<secret PW>');
  expect(decodeURIComponent(masked.lower)).toBe('<secret PW>');
  expect(new URLSearchParams(masked.postData).get('pw')).toBe('<secret PW>');
  expect(maskSecretsInJson('{"a":"nothing here"}', secrets)).toBe('{"a":"nothing here"}');
});
