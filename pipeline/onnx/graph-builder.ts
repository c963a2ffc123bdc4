/**
 * A small ONNX graph builder over the `onnx-proto` protobuf classes: named inputs/outputs with symbolic dims,
 * initializers stored as raw little-endian bytes, nodes with auto-named outputs. Isomorphic (no node:*), so the
 * browser can build the log-prob graph at load time exactly as Node does.
 *
 * Output: an ONNX IR 8 model, default domain at opset 17 (standard ops only).
 */
import onnxProto from 'onnx-proto';
import type { onnx as P } from 'onnx-proto';

const { onnx } = onnxProto;

export const IR_VERSION = 8;
export const OPSET = 17;

export type ElemType = 'float32' | 'float16' | 'int64' | 'bool';
/** A fixed size, or a symbolic name such as "batch_size". */
export type Dim = number | string;

const ELEM: Record<ElemType, number> = {
  float32: onnx.TensorProto.DataType.FLOAT,
  float16: onnx.TensorProto.DataType.FLOAT16,
  int64: onnx.TensorProto.DataType.INT64,
  bool: onnx.TensorProto.DataType.BOOL,
};

/** ONNX data type codes, for `Cast`'s `to` attribute. */
export const DataType = { FLOAT: ELEM.float32, INT64: ELEM.int64, BOOL: ELEM.bool } as const;

/** Forces a FLOAT attribute (a bare integer-valued number would be encoded as INT). */
export class FloatAttr {
  constructor(readonly value: number) {}
}
export const float = (value: number): FloatAttr => new FloatAttr(value);

/** Attribute values: integers → INT, other numbers or `float(x)` → FLOAT, number[] → INTS, string → STRING. */
export type AttrValue = number | FloatAttr | number[] | string;

function attribute(name: string, value: AttrValue): P.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if (value instanceof FloatAttr) return { name, type: T.FLOAT, f: value.value };
  if (typeof value === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(value) };
  if (Array.isArray(value)) return { name, type: T.INTS, ints: value };
  return Number.isInteger(value) ? { name, type: T.INT, i: value } : { name, type: T.FLOAT, f: value };
}

function valueInfo(name: string, type: ElemType, dims: readonly Dim[]): P.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ELEM[type],
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function rawBytes(data: Float32Array | BigInt64Array | Uint8Array): Uint8Array {
  // Typed arrays are little-endian on every platform ONNX Runtime supports, which is what raw_data requires.
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export class GraphBuilder {
  private readonly nodes: P.INodeProto[] = [];
  private readonly initializers: P.ITensorProto[] = [];
  private readonly inputs: P.IValueInfoProto[] = [];
  private readonly outputs: P.IValueInfoProto[] = [];
  private readonly names = new Set<string>();
  private counter = 0;

  constructor(readonly name: string) {}

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`GraphBuilder: duplicate value name "${name}"`);
    this.names.add(name);
    return name;
  }

  /** An unused name (not yet claimed). */
  private fresh(hint: string): string {
    let name: string;
    do name = `${hint}_${this.counter++}`;
    while (this.names.has(name));
    return name;
  }

  input(name: string, type: ElemType, dims: readonly Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), type, dims));
    return name;
  }

  /** Declares `value` (already produced by a node) as a graph output. */
  output(value: string, type: ElemType, dims: readonly Dim[]): string {
    this.outputs.push(valueInfo(value, type, dims));
    return value;
  }

  initializer(name: string, data: Float32Array | BigInt64Array | Uint8Array, dims: readonly number[]): string {
    const size = dims.reduce((a, b) => a * b, 1);
    if (data.length !== size) {
      throw new Error(`GraphBuilder: initializer "${name}" has ${data.length} values, dims [${dims}] need ${size}`);
    }
    const dataType = data instanceof Float32Array ? ELEM.float32 : data instanceof BigInt64Array ? ELEM.int64 : ELEM.bool;
    this.initializers.push({ name: this.claim(name), dims: [...dims], dataType, rawData: rawBytes(data) });
    return name;
  }

  /** A float32 constant; a scalar when `dims` is []. */
  constFloat(values: number | readonly number[], dims?: readonly number[]): string {
    const arr = typeof values === 'number' ? [values] : values;
    return this.initializer(this.fresh('const_f'), Float32Array.from(arr), dims ?? (typeof values === 'number' ? [] : [arr.length]));
  }

  /** An int64 constant; a scalar when `dims` is []. */
  constInt(values: number | readonly number[], dims?: readonly number[]): string {
    const arr = typeof values === 'number' ? [values] : values;
    const data = BigInt64Array.from(arr, (v) => BigInt(v));
    return this.initializer(this.fresh('const_i'), data, dims ?? (typeof values === 'number' ? [] : [arr.length]));
  }

  /** Adds one node with a single output; returns the output's name (`out` or a fresh one). */
  op(opType: string, inputs: readonly string[], attrs: Record<string, AttrValue> = {}, out?: string): string {
    return this.opN(opType, inputs, 1, attrs, out ? [out] : undefined)[0];
  }

  /** Adds one node with `nOutputs` outputs. */
  opN(
    opType: string,
    inputs: readonly string[],
    nOutputs: number,
    attrs: Record<string, AttrValue> = {},
    outs?: readonly string[],
  ): string[] {
    const outputs = outs ? outs.map((o) => this.claim(o)) : Array.from({ length: nOutputs }, () => this.claim(this.fresh(opType)));
    this.nodes.push({
      opType,
      name: `${opType}_${this.nodes.length}`,
      input: [...inputs],
      output: outputs,
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return outputs;
  }

  /** Serialises the model. */
  toBytes(docString = ''): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: IR_VERSION,
      producerName: 'toolformer-ts',
      producerVersion: '0.1.0',
      docString,
      opsetImport: [{ domain: '', version: OPSET }],
      graph: {
        name: this.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
