// bench/fleet: the fleet console's API on a seeded fleet (2,000 endpoints, 100,000 hook runs by default): every
// sort column of GET /v1/fleet/endpoints both ways, page after page, and with filters; global search; the overview's
// summary and attention. p50/p95 per request over loopback, against the reference measured in the same run: a page
// of the existing GET /v1/endpoints (enrollment order). Budgets: a page ≤ 300 ms p95, a search ≤ 200 ms p95.
// Run with `npm run bench:fleet` after `npx tsc -b tsconfig.build.json` (tsx runs this file).
import { seedFleet } from '../../test/support/fleet.js';

interface BenchApi {
  base: string;
  token: string;
  stop: () => void;
}
/** The bench helpers (plain JavaScript, typed here). */
const libPath = '../lib.mjs';
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- lib.mjs has no types; its shape is named here
const lib: {
  createDatabase: () => Promise<string>;
  dbUrl: (name: string) => string;
  dropDatabase: (name: string) => Promise<void>;
  pct: (sorted: number[], p: number) => number;
  startApi: (name: string) => Promise<BenchApi>;
} = await import(libPath);
const { createDatabase, dbUrl, dropDatabase, pct, startApi } = lib;

const ENDPOINTS = Number(process.env.BENCH_FLEET_ENDPOINTS ?? 2000);
const RUNS = Number(process.env.BENCH_FLEET_RUNS ?? 100_000);
const REPEAT = Number(process.env.BENCH_FLEET_REPEAT ?? 3);
const log = (...a: unknown[]) => console.error('[bench:fleet]', ...a);
const SORTS = [
  'hostname',
  'group',
  'platform',
  'agentVersion',
  'appliedRevision',
  'state',
  'lastSeenAt',
  'openFindings',
];

// Times one GET; returns ms and the parsed body.
interface Page {
  items: unknown[];
  nextCursor: string | null;
}
async function timed(base: string, token: string, p: string): Promise<{ ms: number; body: Page }> {
  const t0 = performance.now();
  const res = await fetch(base + p, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Page;
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`${p}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { ms, body };
}

// p50/p95 of a sample, rounded.
function stats(xs: number[]): { n: number; p50: number; p95: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: s.length, p50: r(pct(s, 50)), p95: r(pct(s, 95)), max: r(s[s.length - 1]!) };
}

const name = await createDatabase();
const api = await startApi(name);
try {
  const t0 = performance.now();
  const seed = await seedFleet(api.base, api.token, dbUrl(name), { endpoints: ENDPOINTS, runs: RUNS });
  log(`seeded ${ENDPOINTS} endpoints and ${RUNS} hook runs in ${Math.round(performance.now() - t0)} ms`);
  const get = (p: string) => timed(api.base, api.token, p);
  for (let i = 0; i < 5; i++) await get('/v1/fleet/endpoints?limit=50'); // warm-up

  // Reference: the existing enrollment-ordered list, every page of 50.
  const reference: number[] = [];
  for (let r = 0; r < REPEAT; r++) {
    let cursor: string | null = null;
    do {
      const { ms, body } = await get(`/v1/endpoints?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      reference.push(ms);
      cursor = body.nextCursor;
    } while (cursor);
  }

  const pages: number[] = [];
  const perSort: Record<string, ReturnType<typeof stats>> = {};
  for (const sort of SORTS) {
    const mine: number[] = [];
    for (const order of ['asc', 'desc']) {
      for (let r = 0; r < REPEAT; r++) {
        let cursor: string | null = null;
        let n = 0;
        do {
          const q = `/v1/fleet/endpoints?sort=${sort}&order=${order}&limit=50${cursor ? `&cursor=${cursor}` : ''}`;
          const { ms, body } = await get(q);
          mine.push(ms);
          cursor = body.nextCursor;
          n += body.items.length;
        } while (cursor && n < 500); // ten pages deep each way
      }
    }
    pages.push(...mine);
    perSort[sort] = stats(mine);
  }
  const filters = [
    'state=failed',
    'state=stale,never%20checked%20in',
    `groupId=${seed.groups.alpha}&platform=linux&sort=lastSeenAt&order=desc`,
    'hasFindings=true&sort=openFindings&order=desc',
    'q=build-agent',
    'agentVersion=1.1.0&appliedVersion=none&sort=group',
    `groupId=${seed.groups.alpha}&appliedVersion=1&inFleet=true`,
  ];
  const filtered: number[] = [];
  for (let r = 0; r < REPEAT * 3; r++)
    for (const f of filters) filtered.push((await get(`/v1/fleet/endpoints?${f}&limit=50`)).ms);

  const searches = [
    'dev-01',
    'build-agent-0100',
    'check-7.py',
    'guardrails',
    'alpha-baseline v2',
    'fleet-alpha r2',
    seed.releases.alphaPaused,
    'zzz-nothing',
  ];
  const search: number[] = [];
  for (let r = 0; r < REPEAT * 3; r++)
    for (const q of searches) search.push((await get(`/v1/search?q=${encodeURIComponent(q)}`)).ms);

  const overview: number[] = [];
  for (let r = 0; r < REPEAT * 3; r++) {
    overview.push((await get('/v1/fleet/summary')).ms);
    overview.push((await get('/v1/fleet/attention')).ms);
  }
  const ref = stats(reference);
  const all = stats(pages);
  const result = {
    endpoints: ENDPOINTS,
    hookRuns: RUNS,
    reference_v1_endpoints_page: ref,
    fleet_pages_all_sorts: all,
    fleet_pages_by_sort: perSort,
    fleet_filtered_pages: stats(filtered),
    search: stats(search),
    summary_and_attention: stats(overview),
    ratio_p95_fleet_page_to_reference: Math.round((all.p95 / ref.p95) * 100) / 100,
    budgets: { pageP95Ms: 300, searchP95Ms: 200 },
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  api.stop();
  await dropDatabase(name);
}
