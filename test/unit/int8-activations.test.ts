import * as ort from 'onnxruntime-node';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { computeInInt8, MAX_REWRITE_NODES } from '../../backends/embedding/int8-activations';

/**
 * Writes small ONNX models for the tests. Its schema is written here on purpose, with fields the
 * module under test does not know (metadata_props), to check that they survive the rewrite.
 */
const schema = protobuf.parse(`
  syntax = "proto3";
  message Entry { string key = 1; string value = 2; }
  message Tensor { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9;
                   repeated Entry external_data = 13; int32 data_location = 14; }
  message Attribute { string name = 1; int64 i = 3; Graph g = 6; int32 type = 20; }
  message Node { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
                 repeated Attribute attribute = 5; string domain = 7; repeated Entry metadata_props = 9; }
  message Dim { int64 dim_value = 1; }
  message Shape { repeated Dim dim = 1; }
  message TensorType { int32 elem_type = 1; Shape shape = 2; }
  message Type { TensorType tensor_type = 1; }
  message ValueInfo { string name = 1; Type type = 2; }
  message Graph { repeated Node node = 1; string name = 2; repeated Tensor initializer = 5;
                  repeated ValueInfo input = 11; repeated ValueInfo output = 12; }
  message OpsetId { string domain = 1; int64 version = 2; }
  message Model { int64 ir_version = 1; Graph graph = 7; repeated OpsetId opset_import = 8;
                  repeated Entry metadata_props = 14; }
`).root;
const Model = schema.lookupType('Model');

const FLOAT = 1;
const INT8 = 3;
const INT64 = 7;

type NodeSpec = {
  opType: string;
  input: string[];
  output: string[];
  attribute?: object[];
  metadataProps?: object[];
};

const tensor = (name: string, dims: number[], values: number[], dataType: number) => ({
  name,
  dims,
  dataType,
  rawData: new Uint8Array(dataType === INT8 ? Int8Array.from(values).buffer : Float32Array.from(values).buffer),
});
const valueInfo = (name: string, elemType: number, dims: number[]) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } },
});
const node = (opType: string, input: string[], output: string[], extra: Partial<NodeSpec> = {}): NodeSpec => ({
  opType,
  input,
  output,
  ...extra,
});
const castToFloat = { attribute: [{ name: 'to', type: 2, i: FLOAT }] };

/** Pseudo-random but fixed weights, so a failure is reproducible. */
const values = (n: number, seed: number, scale: number) =>
  Array.from({ length: n }, (_, i) => Math.round(Math.sin(seed * 7919 + i * 104729) * scale));
const W8 = values(24, 1, 127);
const W_SCALE = [0.01, 0.02, 0.005, 0.03];
const X = Float32Array.from(values(12, 3, 1000).map((v) => v / 100));

interface ModelSpec {
  opset?: number;
  /** Mul(scale, Cast(w)) instead of Mul(Cast(w), scale). */
  scaleFirst?: boolean;
  extraNodes?: NodeSpec[];
  extraOutputs?: object[];
  tableLocation?: number;
  modelMetadata?: object[];
}

/**
 * A model the way the installed MiniLM file is written: int8 weights turned into float by
 * Cast → Mul(scale) in front of a MatMul (a scale per output column) and of a Gather (per row).
 */
function weightOnlyInt8Model(spec: ModelSpec = {}): Uint8Array {
  const graph = {
    name: 'weight-only-int8',
    input: [valueInfo('x', FLOAT, [2, 6]), valueInfo('ids', INT64, [3])],
    output: [valueInfo('y', FLOAT, [2, 4]), valueInfo('e', FLOAT, [3, 6]), ...(spec.extraOutputs ?? [])],
    initializer: [
      tensor('w8', [6, 4], W8, INT8),
      tensor('w_scale', [1, 4], W_SCALE, FLOAT),
      { ...tensor('t8', [5, 6], values(30, 2, 127), INT8), dataLocation: spec.tableLocation ?? 0 },
      tensor('t_scale', [5, 1], [0.1, 0.2, 0.3, 0.4, 0.5], FLOAT),
    ],
    node: [
      node('Cast', ['w8'], ['w_f'], castToFloat),
      node('Mul', spec.scaleFirst ? ['w_scale', 'w_f'] : ['w_f', 'w_scale'], ['w']),
      node('MatMul', ['x', 'w'], ['y']),
      node('Cast', ['t8'], ['t_f'], castToFloat),
      node('Mul', ['t_f', 't_scale'], ['t']),
      node('Gather', ['t', 'ids'], ['e']),
      ...(spec.extraNodes ?? []),
    ].map((n, i) => ({ name: `n${i}`, ...n })),
  };
  return Model.encode(
    Model.fromObject({
      irVersion: 8,
      opsetImport: [{ domain: '', version: spec.opset ?? 17 }],
      graph,
      metadataProps: spec.modelMetadata ?? [],
    }),
  ).finish();
}

async function run(model: Uint8Array) {
  const session = await ort.InferenceSession.create(model);
  const out = await session.run({
    x: new ort.Tensor('float32', X, [2, 6]),
    ids: new ort.Tensor('int64', BigInt64Array.from([4n, 0n, 2n]), [3]),
  });
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Array.from(v.data as Float32Array)]));
}

const decode = (bytes: Uint8Array) =>
  Model.toObject(Model.decode(bytes), { defaults: true }) as {
    graph: {
      node: Array<{ opType: string; input: string[]; output: string[]; name: string; metadataProps: object[] }>;
    };
    metadataProps: object[];
  };

/**
 * DynamicQuantizeLinear rounds each input to a step of (range incl. 0) / 255: an output can be off
 * by at most half a step times its column's absolute weights.
 */
function expectWithinQuantization(after: number[], before: number[]) {
  const step = (Math.max(0, ...X) - Math.min(0, ...X)) / 255;
  const bound = (col: number) =>
    (step / 2) * [0, 1, 2, 3, 4, 5].reduce((sum, k) => sum + Math.abs(W8[k * 4 + col] * W_SCALE[col]), 0);
  expect(after).not.toEqual(before); // computed another way, not copied
  after.forEach((v, i) => expect(Math.abs(v - before[i])).toBeLessThanOrEqual(bound(i % 4) * 1.0001));
}

describe('computing a weight-only int8 model in int8', () => {
  it('keeps the weights int8 and gives the same results within the quantization error', async () => {
    const original = weightOnlyInt8Model();
    const rewritten = computeInInt8(original);
    expect(rewritten).toMatchObject({ matMuls: 1, gathers: 1 });

    const nodes = decode(rewritten.bytes).graph.node;
    expect(nodes.map((n) => n.opType)).toContain('MatMulInteger');
    // No Cast of an int8 initializer is left for onnxruntime to fold into float weights.
    expect(nodes.filter((n) => n.opType === 'Cast' && ['w8', 't8'].includes(n.input[0]))).toEqual([]);

    const [before, after] = [await run(original), await run(rewritten.bytes)];
    // Table rows: the same int8 values times the same row scale.
    expect(after.e).toEqual(before.e);
    expectWithinQuantization(after.y, before.y);
  });

  it('finds the scale on either side of the Mul', async () => {
    const original = weightOnlyInt8Model({ scaleFirst: true });
    const rewritten = computeInInt8(original);
    expect(rewritten).toMatchObject({ matMuls: 1, gathers: 1 });
    expectWithinQuantization((await run(rewritten.bytes)).y, (await run(original)).y);
  });

  it('copies what it does not know (newer fields, metadata) byte for byte', async () => {
    const marker = { key: 'kept', value: 'a field this code has no name for' };
    const original = weightOnlyInt8Model({
      extraNodes: [node('Identity', ['y'], ['y_copy'], { metadataProps: [marker] })],
      extraOutputs: [valueInfo('y_copy', FLOAT, [2, 4])],
      modelMetadata: [{ key: 'producer note', value: 'also kept' }],
    });
    const rewritten = computeInInt8(original);
    expect(rewritten.matMuls).toBe(1);
    const model = decode(rewritten.bytes);
    expect(model.graph.node.find((n) => n.opType === 'Identity')!.metadataProps).toEqual([marker]);
    expect(model.metadataProps).toEqual([{ key: 'producer note', value: 'also kept' }]);
    const after = await run(rewritten.bytes);
    expect(after.y_copy).toEqual(after.y);
  });

  it('keeps a dequantized weight that something else reads, and picks names nothing uses', async () => {
    const original = weightOnlyInt8Model({
      // Another reader of the float weights, and a tensor already named as the rewrite would name one.
      extraNodes: [node('Identity', ['w'], ['w_copy']), node('Identity', ['x'], ['y_q'])],
      extraOutputs: [valueInfo('w_copy', FLOAT, [6, 4]), valueInfo('y_q', FLOAT, [2, 6])],
    });
    const rewritten = computeInInt8(original);
    expect(rewritten).toMatchObject({ matMuls: 1, gathers: 1 });
    const nodes = decode(rewritten.bytes).graph.node;
    expect(nodes.filter((n) => n.input.includes('w8') && n.opType === 'Cast')).toHaveLength(1);
    const names = nodes.flatMap((n) => n.output);
    expect(new Set(names).size).toBe(names.length);
    const [before, after] = [await run(original), await run(rewritten.bytes)];
    expect(after.w_copy).toEqual(before.w_copy);
    expect(after.y_q).toEqual(before.y_q);
    expectWithinQuantization(after.y, before.y);
  });

  it('rewrites only the Gather below opset 11 (no DynamicQuantizeLinear there)', async () => {
    const original = weightOnlyInt8Model({ opset: 10 });
    const rewritten = computeInInt8(original);
    expect(rewritten).toMatchObject({ matMuls: 0, gathers: 1 });
    const [before, after] = [await run(original), await run(rewritten.bytes)];
    expect(after).toEqual(before);
  });

  it('leaves alone models with weights in external files, subgraphs, or no pattern', () => {
    for (const model of [
      weightOnlyInt8Model({ tableLocation: 1 }),
      weightOnlyInt8Model({
        extraNodes: [node('If', ['cond'], ['z'], { attribute: [{ name: 'then_branch', type: 5, g: { name: 'b' } }] })],
      }),
      Model.encode(
        Model.fromObject({
          irVersion: 8,
          opsetImport: [{ domain: '', version: 17 }],
          graph: {
            name: 'float',
            input: [valueInfo('x', FLOAT, [1, 2])],
            output: [valueInfo('y', FLOAT, [1, 2])],
            initializer: [tensor('w', [2, 2], [1, 2, 3, 4], FLOAT)],
            node: [node('MatMul', ['x', 'w'], ['y'])],
          },
        }),
      ).finish(),
    ]) {
      const result = computeInInt8(model);
      expect(result).toMatchObject({ matMuls: 0, gathers: 0 });
      expect(result.bytes).toBe(model);
    }
  });
});

describe('a file that is not a model', () => {
  it('is refused with an error (the loader then loads the file as it is)', () => {
    for (const junk of [
      Uint8Array.from([0xff, 0xff, 0xff]),
      new TextEncoder().encode('not a model at all'),
      new Uint8Array([0x3a, 0x7f]),
    ])
      expect(() => computeInInt8(junk)).toThrow();
  });
});

describe('what the rewrite will not touch', () => {
  it('a Cast to anything but float, and names the graph declares without producing', () => {
    // The same model with its Cast turned to DOUBLE (11) instead of FLOAT.
    const model = Model.toObject(Model.decode(weightOnlyInt8Model()));
    expect(model.graph.node[0].opType).toBe('Cast');
    const castToDouble = Model.encode(
      Model.fromObject({
        ...model,
        graph: {
          ...model.graph,
          node: model.graph.node.map((n: NodeSpec) =>
            n.opType === 'Cast' ? { ...n, attribute: [{ name: 'to', type: 2, i: 11 }] } : n,
          ),
        },
      }),
    ).finish();
    expect(computeInInt8(castToDouble)).toMatchObject({ matMuls: 0, gathers: 0 });

    // `y_q` is a declared output nothing produces: the rewrite must not start producing it.
    const declared = weightOnlyInt8Model({ extraOutputs: [valueInfo('y_q', FLOAT, [2, 6])] });
    const produced = decode(computeInInt8(declared).bytes).graph.node.flatMap((n) => n.output);
    expect(produced).not.toContain('y_q');
  });

  it('a graph of more nodes than MAX_REWRITE_NODES, before decoding any of them', () => {
    // The rewritable model, padded with empty nodes (field 1, length 0) as a file built to
    // exhaust memory would be: under the cap it is rewritten, over it left alone.
    const padded = (count: number) => {
      const model = Model.toObject(Model.decode(weightOnlyInt8Model()));
      const graph = Model.encode(Model.fromObject({ graph: model.graph })).finish();
      const body = protobuf.Reader.create(graph);
      body.uint32();
      const nodes = new Uint8Array(count * 2).map((_, i) => (i % 2 === 0 ? 0x0a : 0));
      const withoutGraph = Model.encode(Model.fromObject({ ...model, graph: undefined })).finish();
      const graphEntry = protobuf.Writer.create()
        .uint32((7 << 3) | 2)
        .bytes(Uint8Array.from([...body.bytes(), ...nodes]))
        .finish();
      return Uint8Array.from([...withoutGraph, ...graphEntry]);
    };
    expect(computeInInt8(padded(10)).matMuls).toBe(1);
    const over = padded(MAX_REWRITE_NODES);
    expect(computeInInt8(over)).toMatchObject({ matMuls: 0, gathers: 0 });
    expect(computeInInt8(over).bytes).toBe(over);
  });
});
