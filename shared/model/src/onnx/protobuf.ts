/**
 * The few protobuf wire-format writes an ONNX file needs (varints, length-delimited fields,
 * packed floats and int64s). Hand-written so the trainer needs no protobuf dependency; the
 * parity test loads the result in onnxruntime, which would reject a malformed file.
 */
export class ProtoWriter {
  readonly #chunks: Uint8Array[] = [];

  #varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    while (v >= 0x80n) {
      bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    bytes.push(Number(v));
    this.#chunks.push(Uint8Array.from(bytes));
  }

  #tag(field: number, wireType: 0 | 2 | 5): void {
    this.#varint((field << 3) | wireType);
  }

  int(field: number, value: number | bigint): this {
    this.#tag(field, 0);
    this.#varint(value);
    return this;
  }

  bytes(field: number, data: Uint8Array): this {
    this.#tag(field, 2);
    this.#varint(data.length);
    this.#chunks.push(data);
    return this;
  }

  string(field: number, text: string): this {
    return this.bytes(field, new TextEncoder().encode(text));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  float(field: number, value: number): this {
    this.#tag(field, 5);
    const buf = new Uint8Array(4);
    new DataView(buf.buffer).setFloat32(0, value, true);
    this.#chunks.push(buf);
    return this;
  }

  packedInts(field: number, values: ReadonlyArray<number | bigint>): this {
    const inner = new ProtoWriter();
    for (const v of values) inner.#varint(v);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const total = this.#chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
