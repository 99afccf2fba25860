import { onnx } from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { computeInInt8 } from '../../backends/embedding/int8-activations';

const { FLOAT, INT8 } = onnx.TensorProto.DataType;

const tensor = (name: string, dims: number[], values: number[], dataType: number) =>
  onnx.TensorProto.create({
    name,
    dims,
    dataType,
    rawData:
      dataType === INT8
        ? new Uint8Array(Int8Array.from(values).buffer)
        : new Uint8Array(Float32Array.from(values).buffer),
  });
const input = (name: string, elemType: number, dims: number[]) =>
  onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } },
  });
const node = (opType: string, inputs: string[], outputs: string[], attribute: onnx.IAttributeProto[] = []) =>
  onnx.NodeProto.create({ opType, input: inputs, output: outputs, attribute, name: `${opType}_${outputs[0]}` });
const castToFloat = [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: FLOAT })];

/** Pseudo-random but fixed weights, so a failure is reproducible. */
const values = (n: number, seed: number, scale: number) =>
  Array.from({ length: n }, (_, i) => Math.round(Math.sin(seed * 7919 + i * 104729) * scale));

/**
 * A model the way the installed MiniLM file is written: int8 weights turned into float by
 * Cast → Mul(scale) in front of a MatMul (a scale per output column) and of a Gather (per row).
 */
function weightOnlyInt8Model(): Uint8Array {
  const graph = onnx.GraphProto.create({
    name: 'weight-only-int8',
    input: [input('x', FLOAT, [2, 6]), input('ids', onnx.TensorProto.DataType.INT64, [3])],
    output: [input('y', FLOAT, [2, 4]), input('e', FLOAT, [3, 6])],
    initializer: [
      tensor('w8', [6, 4], values(24, 1, 127), INT8),
      tensor('w_scale', [1, 4], [0.01, 0.02, 0.005, 0.03], FLOAT),
      tensor('t8', [5, 6], values(30, 2, 127), INT8),
      tensor('t_scale', [5, 1], [0.1, 0.2, 0.3, 0.4, 0.5], FLOAT),
    ],
    node: [
      node('Cast', ['w8'], ['w_f'], castToFloat),
      node('Mul', ['w_f', 'w_scale'], ['w']),
      node('MatMul', ['x', 'w'], ['y']),
      node('Cast', ['t8'], ['t_f'], castToFloat),
      node('Mul', ['t_f', 't_scale'], ['t']),
      node('Gather', ['t', 'ids'], ['e']),
    ],
  });
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph }),
  ).finish();
}

const X = Float32Array.from(values(12, 3, 1000).map((v) => v / 100));

async function run(model: Uint8Array) {
  const session = await ort.InferenceSession.create(model);
  const out = await session.run({
    x: new ort.Tensor('float32', X, [2, 6]),
    ids: new ort.Tensor('int64', BigInt64Array.from([4n, 0n, 2n]), [3]),
  });
  return { y: Array.from(out.y.data as Float32Array), e: Array.from(out.e.data as Float32Array) };
}

describe('computing a weight-only int8 model in int8', () => {
  it('keeps the weights int8 and gives the same results within the quantization error', async () => {
    const original = weightOnlyInt8Model();
    const rewritten = computeInInt8(original);
    expect(rewritten).toMatchObject({ matMuls: 1, gathers: 1 });

    const graph = onnx.ModelProto.decode(rewritten.bytes).graph!;
    const ops = graph.node!.map((n) => n.opType);
    expect(ops).toContain('MatMulInteger');
    // No Cast of an int8 initializer is left for onnxruntime to fold into float weights.
    expect(graph.node!.filter((n) => n.opType === 'Cast' && ['w8', 't8'].includes(n.input![0]))).toEqual([]);

    const [before, after] = [await run(original), await run(rewritten.bytes)];
    // Table rows: the same int8 values times the same row scale.
    expect(after.e).toEqual(before.e);
    // DynamicQuantizeLinear rounds each input to a step of (range incl. 0) / 255: an output can be
    // off by at most half a step times the column's absolute weights.
    const step = (Math.max(0, ...X) - Math.min(0, ...X)) / 255;
    const w8 = values(24, 1, 127);
    const wScale = [0.01, 0.02, 0.005, 0.03];
    const bound = (col: number) =>
      (step / 2) * [0, 1, 2, 3, 4, 5].reduce((sum, k) => sum + Math.abs(w8[k * 4 + col] * wScale[col]), 0);
    expect(after.y).not.toEqual(before.y); // computed another way, not copied
    after.y.forEach((v, i) => expect(Math.abs(v - before.y[i])).toBeLessThanOrEqual(bound(i % 4) * 1.0001));
  });

  it('leaves a model without the pattern untouched', () => {
    const graph = onnx.GraphProto.create({
      name: 'float',
      input: [input('x', FLOAT, [1, 2])],
      output: [input('y', FLOAT, [1, 2])],
      initializer: [tensor('w', [2, 2], [1, 2, 3, 4], FLOAT)],
      node: [node('MatMul', ['x', 'w'], ['y'])],
    });
    const model = onnx.ModelProto.encode(
      onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph }),
    ).finish();
    const result = computeInInt8(model);
    expect(result).toMatchObject({ matMuls: 0, gathers: 0 });
    expect(result.bytes).toBe(model);
  });
});
