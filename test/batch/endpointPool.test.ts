/**
 * The endpoint pool's choices without a browser: least-loaded dispatch within
 * each endpoint's own limit, waiting in arrival order, an endpoint taken out
 * of service and offered again after its back-off, exclusion for a retry.
 */
import { Endpoint, EndpointPool, FIRST_BACKOFF_MS } from '../../src/browser/endpointPool';
import { attachTargets, connectPerCapture } from '../../src/browser/options';

function pool(limits: number[], now: () => number = Date.now) {
  const endpoints = limits.map((limit, i) => new Endpoint(`e${i}`, limit, i));
  return { endpoints, pool: new EndpointPool(endpoints, now) };
}

test('captures go to the least-loaded endpoint, ties to the one used least, never over its limit', async () => {
  const { endpoints, pool: p } = pool([2, 2, 4]);
  const leases = [];
  for (let i = 0; i < 8; i++) leases.push(await p.acquire());
  // Load by share of the limit: e2 (limit 4) takes twice the others.
  expect(endpoints.map((e) => e.active)).toEqual([2, 2, 4]);
  expect(leases.slice(0, 3).map((l) => l.endpoint.name)).toEqual(['e0', 'e1', 'e2']);
  let granted = false;
  const waiting = p.acquire().then((lease) => {
    granted = true;
    return lease;
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(granted).toBe(false);
  leases[1].release();
  leases[1].release(); // twice is once
  const next = await waiting;
  expect(next.endpoint).toBe(leases[1].endpoint);
  expect(endpoints.map((e) => e.active)).toEqual([2, 2, 4]);
  expect(p.capacity()).toBe(8);
});

test('waiters are served in arrival order', async () => {
  const { pool: p } = pool([1]);
  const first = await p.acquire();
  const order: number[] = [];
  const a = p.acquire().then((l) => (order.push(1), l));
  const b = p.acquire().then((l) => (order.push(2), l));
  first.release();
  (await a).release();
  (await b).release();
  expect(order).toEqual([1, 2]);
});

test('an endpoint out of service gets nothing until its back-off ends; when all are out, the soonest is still tried', async () => {
  let clock = 1_000_000;
  const { endpoints, pool: p } = pool([2, 2], () => clock);
  expect(p.markDown(endpoints[0], 'connection refused')).toBe(FIRST_BACKOFF_MS);
  for (let i = 0; i < 2; i++) expect((await p.acquire()).endpoint.name).toBe('e1');
  clock += FIRST_BACKOFF_MS;
  expect((await p.acquire()).endpoint.name).toBe('e0');
  // A second failure doubles the back-off; the answer resets it.
  expect(p.markDown(endpoints[0], 'again')).toBe(2 * FIRST_BACKOFF_MS);
  p.markDown(endpoints[1], 'gone');
  p.markDown(endpoints[1], 'gone');
  p.markDown(endpoints[1], 'gone');
  // Both out: e0 is due sooner, so a capture tries it rather than failing untried.
  const tried = await p.acquire();
  expect(tried.endpoint.name).toBe('e0');
  p.markUp(endpoints[0]);
  expect(endpoints[0]).toMatchObject({ failures: 0, downUntil: 0, lastError: '' });
});

test('a waiter for a full pool is served when an endpoint comes back into service', async () => {
  const { endpoints, pool: p } = pool([1, 1]);
  const onE0 = await p.acquire();
  await p.acquire();
  const held = p.acquire();
  // e0's capture failed and it is out of service: its free slot is not handed out while e1, in service, is full.
  p.markDown(endpoints[0], 'died');
  const started = Date.now();
  onE0.release();
  let granted = false;
  void held.then(() => (granted = true));
  await new Promise((resolve) => setTimeout(resolve, FIRST_BACKOFF_MS / 2));
  expect(granted).toBe(false);
  const lease = await held;
  expect(lease.endpoint.name).toBe('e0');
  expect(Date.now() - started).toBeGreaterThanOrEqual(FIRST_BACKOFF_MS - 50);
});

test('a retry excludes the endpoint its browser died on', async () => {
  const { endpoints, pool: p } = pool([4, 4]);
  const first = await p.acquire();
  expect(first.endpoint.name).toBe('e0');
  const retry = await p.acquire(new Set([first.endpoint]));
  expect(retry.endpoint.name).toBe('e1');
  await expect(p.acquire(new Set(endpoints))).rejects.toThrow('every endpoint is excluded');
});

describe('which endpoints', () => {
  test('every --ws-endpoint and --browser-url, else the comma-separated DESIGN_PLAYBOOK_CDP_URL; the same address once', () => {
    const env = { DESIGN_PLAYBOOK_CDP_URL: ' http://127.0.0.1:1 ,127.0.0.1:2,, ws://127.0.0.1:3/devtools/browser/x,127.0.0.1:2' };
    expect(attachTargets({}, env).map((t) => [t.kind, t.url, t.source])).toEqual([
      ['browser-url', 'http://127.0.0.1:1', 'DESIGN_PLAYBOOK_CDP_URL'],
      ['browser-url', 'http://127.0.0.1:2', 'DESIGN_PLAYBOOK_CDP_URL'],
      ['ws-endpoint', 'ws://127.0.0.1:3/devtools/browser/x', 'DESIGN_PLAYBOOK_CDP_URL'],
    ]);
    expect(attachTargets({ browserUrls: ['http://h:1', 'http://h:2'], wsEndpoints: ['ws://h:3/x'] }, env).map((t) => t.url)).toEqual(['ws://h:3/x', 'http://h:1', 'http://h:2']);
    expect(() => attachTargets({}, { DESIGN_PLAYBOOK_CDP_URL: 'http://h:1,ftp://nope' })).toThrow("DESIGN_PLAYBOOK_CDP_URL must be an http://host:port browser URL or a ws:// endpoint (got 'ftp://nope')");
    expect(attachTargets({}, {})).toEqual([]);
    expect(connectPerCapture({}, { DESIGN_PLAYBOOK_CONNECT_PER_CAPTURE: '1' })).toBe(true);
    expect(connectPerCapture({}, { DESIGN_PLAYBOOK_CONNECT_PER_CAPTURE: '0' })).toBe(false);
    expect(connectPerCapture({ connectPerCapture: true }, {})).toBe(true);
  });
});

test('a retry can wait at the front of the queue, and any wait can be given up without taking a slot', async () => {
  const { endpoints, pool: p } = pool([1]);
  const held = await p.acquire();
  const order: string[] = [];
  const plain = p.acquire().then((l) => (order.push('plain'), l));
  const front = p.acquire(new Set(), { front: true }).then((l) => (order.push('front'), l));
  const cap = new AbortController();
  const given = p.acquire(new Set(), { signal: cap.signal });
  cap.abort(new Error('the retry ran out of its cap'));
  await expect(given).rejects.toThrow('the retry ran out of its cap');
  held.release();
  (await front).release();
  (await plain).release();
  expect(order).toEqual(['front', 'plain']);
  expect(endpoints[0].active).toBe(0);
  // Already aborted: refused at once.
  await expect(p.acquire(new Set(), { signal: cap.signal })).rejects.toThrow('the retry ran out of its cap');
  expect(endpoints[0].active).toBe(0);
});
