import { INPUT_IDS, INPUT_VALS, OUTPUT_SCORE } from "../artifact.ts";
import { ProtoWriter } from "./protobuf.ts";

/**
 * The ONNX graph of the scorer, an embedding bag of width 1:
 *
 *   ids   int64 [N, L]  bucket ids, padded with the zero row's id
 *   vals  float [N, L]  feature weights, 0 in padded slots
 *   score = Sigmoid(scale · (ReduceSum(Gather(W, ids) · vals, axis 1) + bias) + shift)   [N]
 *
 * Gather + ReduceSum over a padded batch is the sparse dot product without a dense [N, 2^18]
 * input (DESIGN.md: keep dense inputs small), so a batch costs O(N·L), not O(N·buckets).
 */
export interface GraphWeights {
  weights: Float32Array;
  bias: number;
  scale: number;
  shift: number;
}

export interface ExportMeta {
  version: string;
  docString: string;
  metadata: Record<string, string>;
}

// ONNX enums (onnx.proto3): TensorProto.DataType and AttributeProto.AttributeType.
const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;
/** IR version 8 with opset 13 is read by every onnxruntime from 1.10 on. */
const IR_VERSION = 8;
const OPSET = 13;

export const exportOnnx = (g: GraphWeights, meta: ExportMeta): Uint8Array => {
  const model = new ProtoWriter()
    .int(1, IR_VERSION)
    .string(2, "sift-trainer")
    .string(3, meta.version)
    .int(5, 1)
    .string(6, meta.docString)
    .message(7, (graph) => buildGraph(graph, g))
    .message(8, (opset) => opset.string(1, "").int(2, OPSET));
  for (const [key, value] of Object.entries(meta.metadata)) {
    model.message(14, (entry) => entry.string(1, key).string(2, value));
  }
  return model.finish();
};

const buildGraph = (graph: ProtoWriter, g: GraphWeights): void => {
  const node = (op: string, inputs: string[], output: string, attrs?: (n: ProtoWriter) => void) =>
    graph.message(1, (n) => {
      for (const input of inputs) n.string(1, input);
      n.string(2, output).string(3, output).string(4, op);
      attrs?.(n);
    });
  node("Gather", ["W", INPUT_IDS], "gathered", (n) =>
    n.message(5, (a) => a.string(1, "axis").int(3, 0).int(20, ATTR_INT)),
  );
  node("Mul", ["gathered", INPUT_VALS], "products");
  node("ReduceSum", ["products", "axes"], "dot", (n) =>
    n.message(5, (a) => a.string(1, "keepdims").int(3, 0).int(20, ATTR_INT)),
  );
  node("Add", ["dot", "bias"], "z");
  node("Mul", ["z", "scale"], "scaled");
  node("Add", ["scaled", "shift"], "calibrated");
  node("Sigmoid", ["calibrated"], OUTPUT_SCORE);
  graph.string(2, "spam_standard");
  floatTensor(graph, "W", [g.weights.length], g.weights);
  floatTensor(graph, "bias", [], Float32Array.of(g.bias));
  floatTensor(graph, "scale", [], Float32Array.of(g.scale));
  floatTensor(graph, "shift", [], Float32Array.of(g.shift));
  graph.message(5, (t) => t.packedInts(1, [1]).int(2, INT64).packedInts(7, [1]).string(8, "axes"));
  valueInfo(graph, 11, INPUT_IDS, INT64, ["N", "L"]);
  valueInfo(graph, 11, INPUT_VALS, FLOAT, ["N", "L"]);
  valueInfo(graph, 12, OUTPUT_SCORE, FLOAT, ["N"]);
};

const floatTensor = (graph: ProtoWriter, name: string, dims: number[], data: Float32Array): void => {
  graph.message(5, (t) => {
    if (dims.length > 0) t.packedInts(1, dims);
    t.int(2, FLOAT).string(8, name);
    // raw_data is little-endian float32, which is what Float32Array holds on every Node platform.
    t.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  });
};

const valueInfo = (
  graph: ProtoWriter,
  field: 11 | 12,
  name: string,
  elemType: number,
  dims: string[],
): void => {
  graph.message(field, (v) =>
    v.string(1, name).message(2, (type) =>
      type.message(1, (tensor) =>
        tensor.int(1, elemType).message(2, (shape) => {
          for (const dim of dims) shape.message(1, (d) => d.string(2, dim));
        }),
      ),
    ),
  );
};
