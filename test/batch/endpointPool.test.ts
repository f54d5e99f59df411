/**
 * The endpoint pool's choices without a browser: least-loaded dispatch within
 * each endpoint's own limit, waiting in arrival order, an endpoint taken out
 * of service and offered again after its back-off (jittered, Retry-After
 * honoured, one outage counted once), one probe at a time after a back-off,
 * a wait for an endpoint bounded by the capture's budget, a lower ceiling
 * for a farm that said it is full, exclusion for a retry.
 */
import { BACKOFF_JITTER, Endpoint, EndpointPool, NoEndpointAnswered } from '../../src/browser/fleet/endpointPool';
import { BUSY_RELAX_MS, FIRST_BACKOFF_MS, MAX_BACKOFF_MS } from '../../src/common/time';
import { attachTargets, connectPerCapture } from '../../src/browser/options';

/** No jitter unless a test asks for it, so back-off steps are exact. */
function pool(limits: number[], now: () => number = Date.now, random: () => number = () => 0) {
  const endpoints = limits.map((limit, i) => new Endpoint(`e${i}`, limit, i));
  return { endpoints, pool: new EndpointPool(endpoints, now, random) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

test('an endpoint out of service gets nothing until its back-off ends; the back-off doubles to its cap and an answer resets it', async () => {
  let clock = 1_000_000;
  const { endpoints, pool: p } = pool([2, 2], () => clock);
  expect(p.markDown(endpoints[0], 'connection refused')).toBe(FIRST_BACKOFF_MS);
  for (let i = 0; i < 2; i++) expect((await p.acquire()).endpoint.name).toBe('e1');
  clock += FIRST_BACKOFF_MS;
  // Due again: this capture is the one probe.
  const probe = await p.acquire();
  expect(probe).toMatchObject({ probe: true });
  expect(probe.endpoint.name).toBe('e0');
  // A second failure doubles the back-off; each step doubles up to the cap.
  expect(p.markDown(endpoints[0], 'again')).toBe(2 * FIRST_BACKOFF_MS);
  const steps = [4, 8].map(() => p.markDown(endpoints[0], 'again'));
  expect(steps).toEqual([4 * FIRST_BACKOFF_MS, 8 * FIRST_BACKOFF_MS]);
  expect(p.markDown(endpoints[0], 'again')).toBe(MAX_BACKOFF_MS);
  expect(p.markDown(endpoints[0], 'again')).toBe(MAX_BACKOFF_MS);
  p.markUp(endpoints[0]);
  expect(endpoints[0]).toMatchObject({ failures: 0, downUntil: 0, downSince: 0, lastError: '' });
  expect(p.markDown(endpoints[0], 'once more')).toBe(FIRST_BACKOFF_MS);
});

test('a back-off step is shortened by up to a quarter at random; Retry-After, when longer, wins', () => {
  let clock = 5_000_000;
  const draws = [0.999, 0.5];
  const endpoints = [new Endpoint('farm', 4, 0)];
  const p = new EndpointPool(
    endpoints,
    () => clock,
    () => draws.shift() ?? 0,
  );
  const shortest = p.markDown(endpoints[0], 'refused');
  expect(shortest).toBeLessThan(FIRST_BACKOFF_MS);
  expect(shortest).toBeGreaterThanOrEqual(FIRST_BACKOFF_MS * (1 - BACKOFF_JITTER));
  clock += 10_000;
  // The second step (2 s, jittered to 1.75 s) is shorter than what the farm asked for: Retry-After 7 s it is.
  expect(p.markDown(endpoints[0], 'HTTP 503', { retryAfterMs: 7_000 })).toBe(7_000);
});

test('failures of attempts begun before the last counted one are the same outage: the back-off is not doubled again', () => {
  let clock = 2_000_000;
  const { endpoints, pool: p } = pool([8], () => clock);
  const attempts = [clock, clock + 5, clock + 10];
  clock += 50;
  // Three captures tried at once; the first refusal counts, the two after it are the same outage.
  expect(p.markDown(endpoints[0], 'refused', { attemptedAt: attempts[0] })).toBe(FIRST_BACKOFF_MS);
  clock += 3;
  expect(p.markDown(endpoints[0], 'refused', { attemptedAt: attempts[1] })).toBe(FIRST_BACKOFF_MS - 3);
  expect(p.markDown(endpoints[0], 'refused', { attemptedAt: attempts[2] })).toBe(FIRST_BACKOFF_MS - 3);
  expect(endpoints[0].failures).toBe(1);
  expect(endpoints[0].downSince).toBe(attempts[0]);
  // An attempt begun after it counts: the probe that found it still down.
  clock += FIRST_BACKOFF_MS;
  expect(p.markDown(endpoints[0], 'refused', { attemptedAt: clock - 1 })).toBe(2 * FIRST_BACKOFF_MS);
  expect(endpoints[0].failures).toBe(2);
});

test('after a back-off one capture probes the endpoint; the others wait for its answer, and all go once it answers', async () => {
  const { endpoints, pool: p } = pool([4]);
  p.markDown(endpoints[0], 'refused');
  const granted: string[] = [];
  const waits = [1, 2, 3].map((i) => p.acquire(new Set(), { outage: { budgetMs: 60_000 } }).then((lease) => (granted.push(`w${i}`), lease)));
  await sleep(FIRST_BACKOFF_MS / 2);
  expect(granted).toEqual([]);
  const probe = await waits[0];
  expect(probe.probe).toBe(true);
  await sleep(50);
  expect(granted).toEqual(['w1']);
  // The probe is refused again: still one at a time, after a longer back-off.
  p.markDown(endpoints[0], 'refused', { attemptedAt: Date.now() - 10 });
  probe.release();
  await sleep(FIRST_BACKOFF_MS);
  expect(granted).toEqual(['w1']);
  const second = await waits[1];
  expect(second.probe).toBe(true);
  // It answers: every waiter gets a slot at once.
  p.markUp(endpoints[0]);
  const third = await waits[2];
  expect(third.probe).toBe(false);
  expect(granted).toEqual(['w1', 'w2', 'w3']);
  expect(endpoints[0].active).toBe(2);
});

test('a wait for an endpoint ends with NoEndpointAnswered once its budget passed with none answering, naming the last failure', async () => {
  const { endpoints, pool: p } = pool([1]);
  p.markDown(endpoints[0], 'could not attach: refused');
  const started = Date.now();
  const failure = await p.acquire(new Set(), { outage: { budgetMs: 400 } }).catch((err) => err);
  expect(failure).toBeInstanceOf(NoEndpointAnswered);
  expect(failure.endpoints).toEqual([{ name: 'e0', lastError: 'could not attach: refused' }]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  expect(endpoints[0].active).toBe(0);
  // Its budget counts from its own first failure: a capture that has already waited that long is refused at once.
  await expect(p.acquire(new Set(), { outage: { budgetMs: 400, since: Date.now() - 500 } })).rejects.toBeInstanceOf(NoEndpointAnswered);
});

test('an endpoint that answers during a wait restarts its budget; a wait for a full endpoint that answers is not an outage', async () => {
  const { endpoints, pool: p } = pool([1, 1]);
  const held = [await p.acquire(), await p.acquire()];
  // Both full and answering: a long wait, but not an outage.
  const waitingForSlot = p.acquire(new Set(), { outage: { budgetMs: 200 } });
  await sleep(400);
  held[0].release();
  const slot = await waitingForSlot;
  expect(slot.endpoint.name).toBe('e0');
  slot.release();
  held[1].release();
  // e1 excluded, e0 down (and full): an outage for this waiter. e0 answering halfway (another capture got through) restarts its budget.
  const onE0 = await p.acquire(new Set([endpoints[1]]));
  p.markDown(endpoints[0], 'refused');
  const asked = Date.now();
  let failedAt = 0;
  const outage = p.acquire(new Set([endpoints[1]]), { outage: { budgetMs: 600 } }).catch((err) => {
    failedAt = Date.now();
    return err;
  });
  await sleep(300);
  p.markUp(endpoints[0]);
  p.markDown(endpoints[0], 'refused again');
  await sleep(450);
  // 750 ms after it asked: more than its budget, but not 600 ms since e0 last answered.
  expect(failedAt).toBe(0);
  const failure = await outage;
  expect(failure).toBeInstanceOf(NoEndpointAnswered);
  expect(failure.endpoints).toEqual([{ name: 'e0', lastError: 'refused again' }]);
  expect(failedAt - asked).toBeGreaterThanOrEqual(850);
  onE0.release();
});

test('a farm that says it is full with our captures on it takes at most as many; the ceiling rises again after a quiet spell', async () => {
  let clock = 3_000_000;
  const { endpoints, pool: p } = pool([8], () => clock);
  const leases = [];
  for (let i = 0; i < 4; i++) leases.push(await p.acquire());
  // The fourth capture was refused with 429 while three others are on it.
  expect(p.markBusy(endpoints[0], 'HTTP 429')).toBe(3);
  expect(endpoints[0].answering()).toBe(true);
  leases.pop()!.release();
  let granted = false;
  const waiting = p.acquire().then((lease) => ((granted = true), lease));
  await sleep(20);
  expect(granted).toBe(false);
  // One of the three ends: its slot goes to the waiter. Not yet quiet long enough to raise the ceiling.
  leases.pop()!.release();
  leases.push(await waiting);
  expect(endpoints[0].ceiling).toBe(3);
  clock += BUSY_RELAX_MS;
  leases.pop()!.release();
  expect(endpoints[0].ceiling).toBe(4);
  // Raised back to its limit, the ceiling is gone.
  for (let raised = 5; raised <= 8; raised++) {
    clock += BUSY_RELAX_MS;
    (await p.acquire()).release();
  }
  expect(endpoints[0].ceiling).toBe(0);
});

test('closing the pool ends every wait, and every later acquire, with its reason', async () => {
  const { endpoints, pool: p } = pool([1]);
  await p.acquire();
  p.markDown(endpoints[0], 'refused');
  const waits = [p.acquire(), p.acquire(new Set(), { outage: { budgetMs: 60_000 } })];
  p.close(new Error('the server is shutting down'));
  for (const wait of waits) await expect(wait).rejects.toThrow('the server is shutting down');
  await expect(p.acquire()).rejects.toThrow('the server is shutting down');
});

test('a waiter for a full pool is served when an endpoint comes back into service (as its probe)', async () => {
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
  expect(lease.probe).toBe(true);
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
    expect(attachTargets({ browserUrls: ['http://h:1', 'http://h:2'], wsEndpoints: ['ws://h:3/x'] }, env).map((t) => t.url)).toEqual([
      'ws://h:3/x',
      'http://h:1',
      'http://h:2',
    ]);
    expect(() => attachTargets({}, { DESIGN_PLAYBOOK_CDP_URL: 'http://h:1,ftp://nope' })).toThrow(
      "DESIGN_PLAYBOOK_CDP_URL must be an http://host:port browser URL or a ws:// endpoint (got 'ftp://nope')",
    );
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
