/**
 * Makes a weight-only int8 ONNX model compute in int8.
 *
 * The installed MiniLM file stores each weight matrix as int8 with a float scale per output
 * column, turned back into float by a Cast and a Mul in front of every MatMul (and of the two
 * embedding-table Gathers). onnxruntime folds those at load: ~90 MB of float weights and ~180 MB
 * of session for a 23 MB file, nearly half of a busy worker's memory. Rewritten here the way
 * onnxruntime's own dynamic quantization writes a model, the weights stay int8 and each MatMul
 * quantizes its input per call (DynamicQuantizeLinear → MatMulInteger → Cast → Mul by input
 * scale × column scale), which onnxruntime fuses into one int8 kernel: ~60 MB of session and
 * about twice as fast. The sentence vectors move by about 1 % (cosine 0.988 at worst, 0.995
 * median, against the folded model on the bundled search documents: `npx tsx bench/embedding.ts
 * --dir .tools/embedding/all-MiniLM-L6-v2-int8`), and `npm run eval` gives the same figures.
 *
 * A model without this pattern (a float model in a directory of the user's) comes back unchanged.
 */
import { onnx } from 'onnx-proto';

export interface Int8Rewrite {
  /** The model to load: the rewritten one, or the input when nothing matched. */
  bytes: Uint8Array;
  matMuls: number;
  gathers: number;
}

type Node = onnx.INodeProto;

const { INT8, FLOAT } = onnx.TensorProto.DataType;

export function computeInInt8(modelBytes: Uint8Array): Int8Rewrite {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph;
  if (!graph?.node || !graph.initializer) return { bytes: modelBytes, matMuls: 0, gathers: 0 };
  const initializers = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
  const producers = new Map<string, Node>();
  for (const node of graph.node) for (const out of node.output ?? []) producers.set(out, node);
  const dims = (name: string) => (initializers.get(name)?.dims ?? []).map(Number);

  /** `name` = Mul(Cast(int8 initializer), float initializer): the weight, its scale and its shapes. */
  function dequantized(name: string) {
    const mul = producers.get(name);
    if (mul?.opType !== 'Mul' || mul.input?.length !== 2) return undefined;
    const [castOut, scale] = mul.input;
    const cast = producers.get(castOut);
    const weight = cast?.opType === 'Cast' ? cast.input?.[0] : undefined;
    if (!cast || !weight || initializers.get(weight)?.dataType !== INT8) return undefined;
    if (initializers.get(scale)?.dataType !== FLOAT) return undefined;
    return { mul, cast, weight, scale, weightDims: dims(weight), scaleDims: dims(scale) };
  }

  let counter = 0;
  const node = (opType: string, input: string[], output: string[], attribute: onnx.IAttributeProto[] = []): Node =>
    onnx.NodeProto.create({ opType, input, output, attribute, name: `int8_${counter++}_${opType}` });
  const toFloat = [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: FLOAT })];

  const rewritten: Node[] = [];
  const replaced = new Set<Node>();
  let matMuls = 0;
  let gathers = 0;
  for (const n of graph.node) {
    const [a, b] = n.input ?? [];
    const out = n.output?.[0] ?? '';
    // MatMul(x, W·s) with W [K, N] and s [1, N]: one scale per output column.
    const w = n.opType === 'MatMul' ? dequantized(b) : undefined;
    if (w && w.weightDims.length === 2 && w.scaleDims.join() === `1,${w.weightDims[1]}`) {
      rewritten.push(
        node('DynamicQuantizeLinear', [a], [`${out}_q`, `${out}_q_scale`, `${out}_q_zero`]),
        node('MatMulInteger', [`${out}_q`, w.weight, `${out}_q_zero`], [`${out}_i32`]),
        node('Cast', [`${out}_i32`], [`${out}_f32`], toFloat),
        node('Mul', [`${out}_q_scale`, w.scale], [`${out}_scale`]),
        node('Mul', [`${out}_f32`, `${out}_scale`], [out]),
      );
      replaced.add(w.mul).add(w.cast);
      matMuls++;
      continue;
    }
    // Gather(W·s, ids) on axis 0 with W [V, D] and s [V, 1]: one scale per table row.
    const axis = Number(n.attribute?.find((x) => x.name === 'axis')?.i ?? 0);
    const t = n.opType === 'Gather' && axis === 0 ? dequantized(a) : undefined;
    if (t && t.weightDims.length === 2 && t.scaleDims.join() === `${t.weightDims[0]},1`) {
      rewritten.push(
        node('Gather', [t.weight, b], [`${out}_i8`]),
        node('Cast', [`${out}_i8`], [`${out}_f32`], toFloat),
        node('Gather', [t.scale, b], [`${out}_scale`]),
        node('Mul', [`${out}_f32`, `${out}_scale`], [out]),
      );
      replaced.add(t.mul).add(t.cast);
      gathers++;
      continue;
    }
    rewritten.push(n);
  }
  if (matMuls + gathers === 0) return { bytes: modelBytes, matMuls, gathers };

  // The Cast/Mul pairs go unless something else still reads them (then they stay, unfolded).
  // A Mul goes first, then the Cast it was the only reader of: repeat until nothing changes.
  let kept = rewritten;
  for (;;) {
    const read = new Set([...kept.flatMap((n) => n.input ?? []), ...(graph.output ?? []).map((o) => o.name)]);
    const next = kept.filter((n) => !replaced.has(n) || (n.output ?? []).some((o) => read.has(o)));
    if (next.length === kept.length) break;
    kept = next;
  }
  graph.node = kept;
  return { bytes: onnx.ModelProto.encode(model).finish(), matMuls, gathers };
}
