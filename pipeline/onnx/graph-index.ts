/**
 * An ONNX file's graph without its weights, read through positioned reads: the protobuf is walked field by field
 * (ModelProto → graph → initializer → raw_data), every raw_data of at least `threshold` bytes is skipped and its
 * TensorProto rewritten as external data pointing back into the same file (`location`, offset, length), and
 * everything else is copied as it is. The result is a model of a few hundred kilobytes that ONNX Runtime completes
 * by reading the weights from the file itself (told the folder: model_external_initializers_file_folder_path), so
 * the weights never pass through JavaScript — a 540 MB fp32 SmolLM2-135M costs one copy in ONNX Runtime instead of
 * a JS buffer, a re-encoded graph and ONNX Runtime's own parse of the inline proto. Isomorphic: `read` is passed in.
 *
 * Protobuf wire format: each field is a varint key (number << 3 | wire type) then a varint (type 0), 8 bytes (1),
 * a varint length and that many bytes (2), or 4 bytes (5). ModelProto.graph = 7, GraphProto.initializer = 5,
 * TensorProto.raw_data = 9, .external_data = 13, .data_location = 14 (EXTERNAL = 1), StringStringEntryProto key 1 /
 * value 2.
 */

/** Reads `length` bytes at `offset` (fewer only at the end of the file). */
export type ReadAt = (offset: number, length: number) => Promise<Uint8Array>;

/** Read-ahead per refill: the walk jumps over each raw_data, so a refill mostly serves one field header or a run of nodes. */
const CHUNK = 1 << 16;

/** A window over the file, refilled as the walk moves on. */
class Reader {
  private window: Uint8Array = new Uint8Array(0);
  private start = 0;
  constructor(
    private readonly read: ReadAt,
    readonly size: number,
  ) {}

  /** Bytes [offset, offset + n) (n ≤ what is left in the file). */
  async bytes(offset: number, n: number): Promise<Uint8Array> {
    if (offset < this.start || offset + n > this.start + this.window.length) {
      this.window = await this.read(offset, Math.min(this.size - offset, Math.max(n, CHUNK)));
      this.start = offset;
      if (this.window.length < n) throw new Error(`ONNX file: truncated at byte ${offset + this.window.length} (wanted ${n} at ${offset})`);
    }
    return this.window.subarray(offset - this.start, offset - this.start + n);
  }

  /** A varint at `offset`: its value and byte length. */
  async varint(offset: number): Promise<{ value: number; length: number }> {
    const b = await this.bytes(offset, Math.min(10, this.size - offset));
    let value = 0;
    for (let i = 0; i < b.length; i++) {
      value += (b[i] & 0x7f) * 2 ** (7 * i);
      if (!(b[i] & 0x80)) return { value, length: i + 1 };
    }
    throw new Error(`ONNX file: bad varint at byte ${offset}`);
  }

  /** The field at `offset`: number, wire type, where its payload starts and ends. */
  async field(offset: number): Promise<{ number: number; type: number; payload: number; end: number }> {
    const key = await this.varint(offset);
    const [number, type] = [Math.floor(key.value / 8), key.value % 8];
    let payload = offset + key.length;
    let end: number;
    if (type === 0) end = payload + (await this.varint(payload)).length;
    else if (type === 1) end = payload + 8;
    else if (type === 5) end = payload + 4;
    else if (type === 2) {
      const len = await this.varint(payload);
      payload += len.length;
      end = payload + len.value;
    } else throw new Error(`ONNX file: unsupported wire type ${type} at byte ${offset}`);
    if (end > this.size) throw new Error(`ONNX file: field ${number} at byte ${offset} runs past the end (${end} > ${this.size})`);
    return { number, type, payload, end };
  }
}

const encodeVarint = (value: number): number[] => {
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
};
const utf8 = new TextEncoder();
/** A length-delimited field. */
const lengthField = (number: number, payload: Uint8Array[]): Uint8Array[] => {
  const size = payload.reduce((s, p) => s + p.length, 0);
  return [Uint8Array.from([...encodeVarint(number * 8 + 2), ...encodeVarint(size)]), ...payload];
};
const entry = (key: string, value: string) => lengthField(13, [...lengthField(1, [utf8.encode(key)]), ...lengthField(2, [utf8.encode(value)])]);

export interface GraphIndex {
  /** The model with large raw_data moved out as external data into `location`. */
  model: Uint8Array;
  /** How many initializers now point into the file, and their bytes. */
  external: number;
  externalBytes: number;
}

/**
 * The model at `read` (`size` bytes) with every initializer's raw_data of ≥ `threshold` bytes replaced by an
 * external-data reference into `location` (the file's own name) at its offset in the file.
 */
export async function indexGraph(read: ReadAt, size: number, location: string, threshold = 1024): Promise<GraphIndex> {
  const r = new Reader(read, size);
  let external = 0;
  let externalBytes = 0;
  const copy = async (from: number, to: number) => [(await r.bytes(from, to - from)).slice()];

  /** A TensorProto's bytes, with a large raw_data turned into external data. */
  const tensor = async (start: number, end: number): Promise<Uint8Array[]> => {
    const parts: Uint8Array[] = [];
    let raw: { offset: number; length: number } | null = null;
    for (let at = start; at < end; ) {
      const fld = await r.field(at);
      if (fld.number === 9 && fld.type === 2 && fld.end - fld.payload >= threshold) raw = { offset: fld.payload, length: fld.end - fld.payload };
      else parts.push(...(await copy(at, fld.end)));
      at = fld.end;
    }
    if (!raw) return parts;
    external++;
    externalBytes += raw.length;
    return [
      ...parts,
      ...entry('location', location),
      ...entry('offset', String(raw.offset)),
      ...entry('length', String(raw.length)),
      Uint8Array.from([14 * 8, 1]), // data_location = EXTERNAL
    ];
  };

  const graph = async (start: number, end: number): Promise<Uint8Array[]> => {
    const parts: Uint8Array[] = [];
    for (let at = start; at < end; ) {
      const fld = await r.field(at);
      if (fld.number === 5 && fld.type === 2 && fld.end - fld.payload >= threshold) parts.push(...lengthField(5, await tensor(fld.payload, fld.end)));
      else parts.push(...(await copy(at, fld.end)));
      at = fld.end;
    }
    return parts;
  };

  const parts: Uint8Array[] = [];
  for (let at = 0; at < size; ) {
    const fld = await r.field(at);
    if (fld.number === 7 && fld.type === 2) parts.push(...lengthField(7, await graph(fld.payload, fld.end)));
    else parts.push(...(await copy(at, fld.end)));
    at = fld.end;
  }
  const model = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    model.set(p, o);
    o += p.length;
  }
  return { model, external, externalBytes };
}
