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
 * Only the graph's node list changes: every other byte of the file (initializers, metadata, and
 * fields of newer ONNX versions this code does not know) is copied as it is, at the protobuf wire
 * level. A model without the pattern, with weights in external files, with subgraphs, or an
 * opset too old for the int8 operators, comes back unchanged.
 */
import protobuf from 'protobufjs';

export interface Int8Rewrite {
  /** The model to load: the rewritten one, or the input when nothing matched. */
  bytes: Uint8Array;
  matMuls: number;
  gathers: number;
}

/** The few ONNX fields read or written here (field numbers of onnx.proto, which is stable). */
const onnx = protobuf.parse(`
  syntax = "proto3";
  message Tensor { repeated int64 dims = 1; int32 data_type = 2; string name = 8; int32 data_location = 14; }
  message Attribute { string name = 1; int64 i = 3; Graph g = 6; repeated Graph graphs = 11; int32 type = 20; }
  message Node { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
                 repeated Attribute attribute = 5; string domain = 7; }
  message ValueInfo { string name = 1; }
  message Graph { repeated Node node = 1; repeated Tensor initializer = 5; repeated ValueInfo input = 11;
                  repeated ValueInfo output = 12; repeated ValueInfo value_info = 13; }
  message OpsetId { string domain = 1; int64 version = 2; }
  message Model { repeated OpsetId opset_import = 8; }
`).root;
const NodeType = onnx.lookupType('Node');
const GraphType = onnx.lookupType('Graph');
const ModelType = onnx.lookupType('Model');

interface Tensor {
  dims: number[];
  dataType: number;
  name: string;
  dataLocation: number;
}
interface Attribute {
  name: string;
  i?: number;
  g?: unknown;
  graphs?: unknown[];
  type?: number;
}
interface Node {
  input: string[];
  output: string[];
  name: string;
  opType: string;
  attribute: Attribute[];
  domain: string;
}

const FLOAT = 1;
const INT8 = 3;
const EXTERNAL = 1;
const ATTRIBUTE_INT = 2;
const GRAPH_FIELD = 7; // ModelProto.graph
const NODE_FIELD = 1; // GraphProto.node
/**
 * More nodes than this and the model is left as it is, before anything is decoded: MiniLM has
 * ~500, and decoding costs ~300 bytes of heap per node, so a file of millions of empty nodes
 * would otherwise exhaust the process (which no catch survives).
 */
export const MAX_REWRITE_NODES = 100_000;

/** How many entries of length-delimited field `field` a message has (one pass, nothing kept). */
function countField(bytes: Uint8Array, field: number): number {
  const reader = protobuf.Reader.create(bytes);
  let count = 0;
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) count++;
    reader.skipType(tag & 7);
  }
  return count;
}

/** The top-level fields of a message as byte ranges of `bytes`, in order. */
function wireFields(bytes: Uint8Array): Array<{ field: number; start: number; end: number; body?: Uint8Array }> {
  const reader = protobuf.Reader.create(bytes);
  const fields = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    if (tag >>> 3 === 0) throw new Error('not a protobuf message');
    if ((tag & 7) === 2) {
      const body = reader.bytes();
      fields.push({ field: tag >>> 3, start, end: reader.pos, body });
    } else {
      reader.skipType(tag & 7);
      fields.push({ field: tag >>> 3, start, end: reader.pos });
    }
  }
  return fields;
}

/**
 * Concatenates `message`'s fields in order, putting `parts` (as field `field`) where the first
 * entry of that field was; the other entries of `field` are dropped.
 */
function splice(message: Uint8Array, field: number, parts: Uint8Array[]): Uint8Array {
  const entries = parts.map((part) =>
    protobuf.Writer.create()
      .uint32((field << 3) | 2)
      .bytes(part)
      .finish(),
  );
  const chunks: Uint8Array[] = [];
  let placed = false;
  for (const f of wireFields(message)) {
    if (f.field !== field) chunks.push(message.subarray(f.start, f.end));
    else if (!placed) {
      placed = true;
      chunks.push(...entries);
    }
  }
  if (!placed) chunks.push(...entries);
  return Buffer.concat(chunks);
}

export function computeInInt8(modelBytes: Uint8Array): Int8Rewrite {
  const unchanged = { bytes: modelBytes, matMuls: 0, gathers: 0 };
  const modelFields = wireFields(modelBytes);
  const graphFields = modelFields.filter((f) => f.field === GRAPH_FIELD);
  // Protobuf merges repeated entries of a message field; a file written that way is left alone.
  if (graphFields.length !== 1 || !graphFields[0].body) return unchanged;
  const graphBytes = graphFields[0].body;
  if (countField(graphBytes, NODE_FIELD) > MAX_REWRITE_NODES) return unchanged;
  const model = ModelType.toObject(ModelType.decode(modelBytes), { longs: Number, defaults: true }) as {
    opsetImport: Array<{ domain: string; version: number }>;
  };
  const graph = GraphType.toObject(GraphType.decode(graphBytes), { longs: Number, defaults: true }) as {
    node: Node[];
    initializer: Tensor[];
    input: Array<{ name: string }>;
    output: Array<{ name: string }>;
    valueInfo: Array<{ name: string }>;
  };
  // Each node's own bytes, in order, so kept nodes are copied exactly.
  const nodeBytes = wireFields(graphBytes)
    .filter((f) => f.field === NODE_FIELD)
    .map((f) => f.body!);
  if (nodeBytes.length !== graph.node.length) return unchanged;

  const hasSubgraphs = graph.node.some((n) => n.attribute.some((a) => a.g || a.graphs?.length));
  const external = graph.initializer.some((t) => t.dataLocation === EXTERNAL);
  if (hasSubgraphs || external) return unchanged;
  const opset = model.opsetImport.find((o) => o.domain === '' || o.domain === 'ai.onnx')?.version ?? 0;
  // DynamicQuantizeLinear came with opset 11; the Gather rewrite uses only opset-1 operators.
  const canQuantizeMatMul = opset >= 11;

  const initializers = new Map(graph.initializer.map((t) => [t.name, t]));
  const producers = new Map<string, Node>();
  for (const n of graph.node) for (const out of n.output) producers.set(out, n);
  // Every name the graph mentions, declared or used, so a new one never collides.
  const used = new Set<string>([
    ...graph.initializer.map((t) => t.name),
    ...[...graph.input, ...graph.output, ...graph.valueInfo].map((v) => v.name),
    ...graph.node.flatMap((n) => [...n.input, ...n.output, n.name]),
  ]);
  const nextSuffix = new Map<string, number>();
  /** A tensor or node name nothing in the model uses yet (a counter per base: no rescans). */
  const fresh = (base: string) => {
    let k = nextSuffix.get(base) ?? 1;
    let name = k === 1 ? base : `${base}_${k}`;
    while (used.has(name)) name = `${base}_${++k}`;
    nextSuffix.set(base, k + 1);
    used.add(name);
    return name;
  };
  /** Exactly the attributes given, each an INT of that value (no others, no other types). */
  const intAttributes = (n: Node, expected: Record<string, number>) =>
    n.attribute.length === Object.keys(expected).length &&
    n.attribute.every((a) => a.type === ATTRIBUTE_INT && a.name in expected && Number(a.i) === expected[a.name]);

  /** `name` = Mul(Cast(int8 initializer), float initializer), either operand order. */
  function dequantized(name: string) {
    const mul = producers.get(name);
    if (mul?.opType !== 'Mul' || mul.domain || mul.input.length !== 2) return undefined;
    for (const [castOut, scale] of [mul.input, [...mul.input].reverse()]) {
      const cast = producers.get(castOut);
      const castsToFloat = cast?.opType === 'Cast' && !cast.domain && intAttributes(cast, { to: FLOAT });
      const weight = castsToFloat ? cast.input[0] : undefined;
      const w = weight ? initializers.get(weight) : undefined;
      const s = initializers.get(scale);
      if (!cast || !weight || w?.dataType !== INT8 || s?.dataType !== FLOAT) continue;
      return { mul, cast, weight, scale, weightDims: w.dims.map(Number), scaleDims: s.dims.map(Number) };
    }
    return undefined;
  }
  const isScalar = (dims: number[]) => dims.every((d) => d === 1);

  const node = (opType: string, input: string[], output: string[], attribute: Attribute[] = []): Uint8Array =>
    NodeType.encode(NodeType.fromObject({ opType, input, output, attribute, name: fresh(`int8_${opType}`) })).finish();
  const toFloat = [{ name: 'to', type: ATTRIBUTE_INT, i: FLOAT }];

  const rewritten: Array<{ bytes: Uint8Array; node?: Node; inputs: string[]; outputs: string[] }> = [];
  const add = (bytes: Uint8Array, inputs: string[], outputs: string[]) => rewritten.push({ bytes, inputs, outputs });
  const replaced = new Set<Node>();
  let matMuls = 0;
  let gathers = 0;
  graph.node.forEach((n, index) => {
    const [a, b] = n.input;
    const out = n.output[0];
    // MatMul(x, W·s) with W [K, N] and s one scale per output column ([N], [1, N]) or one in all.
    const w = n.opType === 'MatMul' && !n.domain && canQuantizeMatMul ? dequantized(b) : undefined;
    const perColumn = (dims: number[]) => dims.at(-1) === w?.weightDims[1] && isScalar(dims.slice(0, -1));
    if (w && w.weightDims.length === 2 && (perColumn(w.scaleDims) || isScalar(w.scaleDims))) {
      const [q, qScale, qZero, i32, f32, scale] = ['q', 'q_scale', 'q_zero', 'i32', 'f32', 'scale'].map((s) =>
        fresh(`${out}_${s}`),
      );
      add(node('DynamicQuantizeLinear', [a], [q, qScale, qZero]), [a], [q, qScale, qZero]);
      add(node('MatMulInteger', [q, w.weight, qZero], [i32]), [q, w.weight, qZero], [i32]);
      add(node('Cast', [i32], [f32], toFloat), [i32], [f32]);
      add(node('Mul', [qScale, w.scale], [scale]), [qScale, w.scale], [scale]);
      add(node('Mul', [f32, scale], [out]), [f32, scale], [out]);
      replaced.add(w.mul).add(w.cast);
      matMuls++;
      return;
    }
    // Gather(W·s, ids) on axis 0 with W [V, D] and s one scale per row ([V, 1]).
    const onAxis0 = intAttributes(n, {}) || intAttributes(n, { axis: 0 });
    const t = n.opType === 'Gather' && !n.domain && onAxis0 ? dequantized(a) : undefined;
    if (t && t.weightDims.length === 2 && t.scaleDims.join() === `${t.weightDims[0]},1`) {
      const [i8, f32, scale] = ['i8', 'f32', 'scale'].map((s) => fresh(`${out}_${s}`));
      add(node('Gather', [t.weight, b], [i8]), [t.weight, b], [i8]);
      add(node('Cast', [i8], [f32], toFloat), [i8], [f32]);
      add(node('Gather', [t.scale, b], [scale]), [t.scale, b], [scale]);
      add(node('Mul', [f32, scale], [out]), [f32, scale], [out]);
      replaced.add(t.mul).add(t.cast);
      gathers++;
      return;
    }
    rewritten.push({ bytes: nodeBytes[index], node: n, inputs: n.input, outputs: n.output });
  });
  if (matMuls + gathers === 0) return unchanged;

  // The Cast/Mul pairs go unless something else still reads them (then they stay, unfolded).
  // A Mul goes first, then the Cast it was the only reader of: repeat until nothing changes.
  let kept = rewritten;
  for (;;) {
    const read = new Set([...kept.flatMap((n) => n.inputs), ...graph.output.map((o) => o.name)]);
    const next = kept.filter((n) => !n.node || !replaced.has(n.node) || n.outputs.some((o) => read.has(o)));
    if (next.length === kept.length) break;
    kept = next;
  }
  const newGraph = splice(
    graphBytes,
    NODE_FIELD,
    kept.map((n) => n.bytes),
  );
  return { bytes: splice(modelBytes, GRAPH_FIELD, [newGraph]), matMuls, gathers };
}
