/**
 * Bulk data benchmark (not a test): the platform started as `npm start` starts it (embedded defaults,
 * its own process), everything through the gateway on loopback, each figure against a baseline of
 * the same run (docs/adr/0036, 0037):
 *  - import of 500 tickets with 500 new customers (one POST /import) vs 500 sequential POST /tickets
 *    (each naming a new customer): wall time and ratio (aim ≥ 5×);
 *  - export of 10,000 tickets (one streamed POST /export) vs 100 pages of GET /tickets?pageSize=100:
 *    wall time, ratio, and the platform process's peak RSS growth during each (aim < 64 MB);
 *  - search over 10,000 tickets, 10,000 customers and 1,000 articles vs GET /tickets/{id}: p50/p99.
 *
 *   npx tsx bench/dataops.bench.ts [--searches 200] [--imports 500] [--import-only] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` writes the platform process's CPU profile there (open it in Chrome DevTools).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MongoClient, type Document } from 'mongodb';
import { searchTokensOf } from '@helpdesk/kit';
import { pct, startLocalPlatform } from './processes';

const { values } = parseArgs({ options: { searches: { type: 'string', default: '200' }, imports: { type: 'string', default: '500' }, 'import-only': { type: 'boolean', default: false }, 'cpu-prof': { type: 'string' } } });
const SEARCHES = Number(values.searches);
const IMPORTS = Number(values.imports);

const ms = (x: number) => `${x.toFixed(1)} ms`;

/** `n` clones of the newest document of a collection (made through the API, so every field is there), in batches. */
async function seed(mongo: MongoClient, db: string, collection: string, n: number, clone: (doc: Document, i: number) => Document): Promise<void> {
  const coll = mongo.db(db).collection(collection);
  const [template] = await coll.find({}).sort({ createdAt: -1 }).limit(1).toArray();
  if (!template) throw new Error(`no ${collection} to clone`);
  for (let i = 0; i < n; i += 1_000) await coll.insertMany(Array.from({ length: Math.min(1_000, n - i) }, (_, j) => clone(template, i + j)) as never[]);
}

/** The process's resident set (kB → MB) from /proc, sampled every 10 ms while `run` runs: the peak growth over the start. */
async function peakRssGrowth<T>(pid: number, run: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  const before = rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 10);
  try {
    const result = await run();
    peak = Math.max(peak, rss());
    return { result, growthMb: peak - before };
  } finally {
    clearInterval(timer);
  }
}

/** The process's CPU time (user + system) in ms, from /proc. */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

/**
 * Waits until the platform is idle (under 10% of a core over half a second): the events of what ran
 * before (each created record's consumers) are handled, so a figure does not pay for the one before it.
 */
async function settled(pid: number): Promise<void> {
  for (;;) {
    const before = cpuMs(pid);
    await new Promise((r) => setTimeout(r, 500));
    if (cpuMs(pid) - before < 50) return;
  }
}

async function main(): Promise<void> {
  const { base, creds, pid, mongo, call, close } = await startLocalPlatform('dataops', 'test', {}, values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []);
  try {
    const headers = { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json' };
    const record = (run: string, i: number) => ({
      title: `Bench ${run} ticket ${i} about printer ${i % 97}`,
      description: `Customer ${i} reports that the printer on floor ${i % 13} is jammed again.`,
      customer_email: `${run}-${i}@bench.example.com`,
      customer_name: `Bench ${run} ${i}`,
      priority: ['low', 'normal', 'high', 'urgent'][i % 4],
      tags: [`t${i % 10}`],
    });
    // Warm-up (connections, model caches) on both paths.
    await call('POST', `${base}/import`, { resource: 'tickets', records: [record('warm', 0)] });
    await call('POST', `${base}/tickets`, { title: 'warm', customerName: 'Warm Up', messages: [{ sender: 'customer', content: 'hi' }] });

    // 1. Import vs sequential creates, each from an idle platform.
    await settled(pid);
    let t0 = performance.now();
    for (let i = 0; i < IMPORTS; i++) {
      const r = record('seq', i);
      await call('POST', `${base}/tickets`, { title: r.title, priority: r.priority, tags: r.tags, customerName: r.customer_name, messages: [{ sender: 'customer', content: r.description }] });
    }
    const sequentialMs = performance.now() - t0;
    await settled(pid);
    t0 = performance.now();
    const imported = (await call('POST', `${base}/import`, { resource: 'tickets', records: Array.from({ length: IMPORTS }, (_, i) => record('imp', i)) })).data;
    const importMs = performance.now() - t0;
    if (imported.created !== IMPORTS) throw new Error(`import created ${imported.created}: ${JSON.stringify(imported.errors.slice(0, 3))}`);
    const importSettledMs = await (async () => {
      const t = performance.now();
      await settled(pid);
      return performance.now() - t;
    })();
    console.log(
      `import   ${IMPORTS} tickets + ${IMPORTS} new customers: ${ms(importMs)} (one POST /import) vs ${ms(sequentialMs)} (${IMPORTS} sequential POST /tickets) = ${(sequentialMs / importMs).toFixed(1)}× faster ` +
        `(the import's events were handled ${ms(importSettledMs)} after its answer; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
    );

    if (values['import-only']) return;
    // Seed 10,000 tickets, 10,000 customers and 1,000 articles: clones of one record made through the API,
    // written straight to each service's database (what is measured below is reading them, not writing them).
    await call('POST', `${base}/articles`, { title: 'Template article', content: 'How to fix a printer.', status: 'published' });
    // Each clone with its own search words, as the owning services' writes store them (docs/adr/0034).
    await seed(mongo, 'ticketing', 'tickets', 10_000, (t, i) => {
      const title = `Seeded ticket ${i} about printer ${i % 97}`;
      const searchText = `seeded ticket ${i} about printer ${i % 97}\nseed ${i}\nthe printer on floor ${i % 13} is jammed`;
      const at = { createdAt: new Date(Date.now() - (10_000 - i) * 1000), updatedAt: new Date() };
      return { ...t, _id: `tkt_seed${String(i).padStart(20, '0')}`, title, searchText, searchTokens: searchTokensOf(searchText), titleTokens: searchTokensOf(title), ...at };
    });
    await seed(mongo, 'customers', 'customers', 10_000, (c, i) => {
      const [name, email] = [`Seeded ${i}`, `seed${i}@bench.example.com`];
      return { ...c, _id: `cus_seed${String(i).padStart(20, '0')}`, name, email, emailLower: email, searchTokens: searchTokensOf(name, email) };
    });
    await seed(mongo, 'knowledge', 'articles', 1_000, (a, i) => {
      const [title, content] = [`Article ${i} on printers ${i % 50}`, `How to fix printer problem ${i}. `.repeat(20)];
      return { ...a, _id: `art_seed${String(i).padStart(20, '0')}`, title, content, searchTokens: searchTokensOf(title, content), titleTokens: searchTokensOf(title) };
    });

    // 2. Export vs 100 pages.
    const exported = await peakRssGrowth(pid, async () => {
      const t = performance.now();
      const res = await fetch(`${base}/export`, { method: 'POST', headers, body: JSON.stringify({ resources: ['tickets'] }) });
      let bytes = 0;
      for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
      if (res.status !== 200) throw new Error(`export ${res.status}`);
      return { ms: performance.now() - t, bytes };
    });
    const paged = await peakRssGrowth(pid, async () => {
      const t = performance.now();
      let rows = 0;
      for (let page = 1; page <= 100; page++) rows += (await call('GET', `${base}/tickets?pageSize=100&page=${page}`)).data.length;
      return { ms: performance.now() - t, rows };
    });
    console.log(
      `export   10,000 tickets: ${ms(exported.result.ms)} (one streamed POST /export, ${(exported.result.bytes / 1e6).toFixed(1)} MB, peak RSS growth ${exported.growthMb.toFixed(1)} MB) ` +
        `vs ${ms(paged.result.ms)} (100 × GET /tickets?pageSize=100, ${paged.result.rows} rows, peak RSS growth ${paged.growthMb.toFixed(1)} MB) = ${(paged.result.ms / exported.result.ms).toFixed(1)}× faster`,
    );

    // 3. Search (10,000 tickets, 10,000+ customers, 1,000 articles) vs GET /tickets/{id}.
    const ids = (await call('GET', `${base}/tickets?pageSize=100`)).data.map((t: { id: string }) => t.id);
    const queries = ['printer 42', 'jammed', 'Seeded 77', 'floor 7', 'Article 99', 'bench.example.com'];
    const timed = async (url: string) => {
      const t = performance.now();
      await call('GET', url);
      return performance.now() - t;
    };
    const search: number[] = [];
    const getOne: number[] = [];
    for (let i = 0; i < SEARCHES; i++) {
      search.push(await timed(`${base}/search?q=${encodeURIComponent(queries[i % queries.length])}`));
      getOne.push(await timed(`${base}/tickets/${ids[i % ids.length]}`));
    }
    search.sort((a, b) => a - b);
    getOne.sort((a, b) => a - b);
    console.log(
      `search   10,000 tickets + 10,000 customers + 1,000 articles, ${SEARCHES} queries: p50 ${ms(pct(search, 50))} p99 ${ms(pct(search, 99))} ` +
        `vs GET /tickets/{id} p50 ${ms(pct(getOne, 50))} p99 ${ms(pct(getOne, 99))} (p50 ${(pct(search, 50) / pct(getOne, 50)).toFixed(1)}× the single read)`,
    );
  } finally {
    await close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
