/**
 * ONNX external data, the layout of Hugging Face exports over protobuf's 2 GB limit (Qwen2.5-1.5B:
 * `onnx/model.onnx` + `onnx/model.onnx_data`): initializers of at least `threshold` bytes move to one data file, and
 * the graph keeps, per tensor, `data_location = EXTERNAL` with `location`, `offset` and `length` entries (onnx's
 * convert_model_to_external_data, all_tensors_to_one_file). Offsets are aligned to 4096 bytes for tensors of a page
 * or more, so a runtime may map them. Isomorphic.
 */
import type { onnx as P } from 'onnx-proto';
import { decodeModel, encodeModel, noteDoc, setExternal } from './onnx-edit.ts';

export interface ExternalDataModel {
  /** The graph, with the large initializers' data moved out. */
  model: Uint8Array;
  /** The data file's bytes, to be written as `location` next to the model. */
  data: Uint8Array;
  location: string;
}

const PAGE = 4096;

export function toExternalData(model: Uint8Array, location: string, threshold = 1024): ExternalDataModel {
  const proto = decodeModel(model);
  const chunks: { offset: number; bytes: Uint8Array }[] = [];
  let end = 0;
  for (const t of proto.graph?.initializer ?? []) {
    const raw = t.rawData;
    if (!raw || raw.length < threshold) continue;
    const offset = raw.length >= PAGE ? Math.ceil(end / PAGE) * PAGE : end;
    chunks.push({ offset, bytes: raw });
    end = offset + raw.length;
    setExternal(t, location, offset, raw.length);
  }
  const data = new Uint8Array(end);
  for (const c of chunks) data.set(c.bytes, c.offset);
  noteDoc(proto, `weights in ${location}: pipeline/onnx/external-data.ts`);
  return { model: encodeModel(proto), data, location };
}

/**
 * Points a decoded model's large initializers at the bytes they were decoded from, as external data: each gets
 * `location` (the model file's own name), the offset of its raw_data within `source`, and its length; raw_data is
 * cleared. Re-encoding then gives a graph of a few kilobytes that ONNX Runtime completes by reading the weights from
 * the original file (Node: the folder passed as model_external_initializers_file_folder_path) or from the same bytes
 * (browser: externalData [{ path: location, data: source }]) — so a rewritten graph never copies the weights.
 * Initializers that are not views of `source` (made by a rewrite) stay inline. Returns how many moved.
 */
export function referenceWeights(proto: P.IModelProto, source: Uint8Array, location: string, threshold = 1024): number {
  let moved = 0;
  for (const t of proto.graph?.initializer ?? []) {
    const raw = t.rawData;
    if (!raw || raw.length < threshold || raw.buffer !== source.buffer) continue;
    const offset = raw.byteOffset - source.byteOffset;
    if (offset < 0 || offset + raw.length > source.length) continue;
    setExternal(t, location, offset, raw.length);
    moved++;
  }
  return moved;
}
