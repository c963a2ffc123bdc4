/**
 * Where the worker reads a model folder from (Hugging Face layout, paths relative to the folder): the page's own
 * origin by URL (/models/<name>/), or Files the user opened from disk (a directory input or a dropped folder; File
 * objects cross to the worker by structured clone, and their bytes are read only when asked). Worker-side.
 */
import type { ModelSource as CoreModelSource, OnnxFile, ReadProgress } from '../../pipeline/core/lm/load-model.ts';
import { FILE_LIST, streamChunks, type DigestFile } from './model-digest.ts';
import type { FolderFile } from './model-folder.ts';

/** What the page sends in a `load` request: a folder URL, or the opened folder's files. */
export type ModelSourceSpec = { kind: 'url'; url: string } | { kind: 'files'; name: string; files: FolderFile[] };

/** onnxruntime-web's `externalData` entry: by URL (onnxruntime-web fetches it) or the bytes themselves. */
export interface ExternalDataEntry {
  path: string;
  data: string | Uint8Array;
}

/** Core's model source (core/lm/load-model.ts: what loadOrtModel reads) and what the page's other features read. */
export interface ModelSource extends CoreModelSource {
  /** Shown on the page and recorded as CausalLM.id: the URL, or "disk:<folder name>". */
  readonly id: string;
  /** A file's bytes, reporting progress in bytes. */
  bytes(path: string, onProgress?: ReadProgress): Promise<Uint8Array>;
  /** An external-data file for onnxruntime-web, under its own name (`model_q4f16.onnx_data` for onnx/ that). */
  externalData(path: string): Promise<ExternalDataEntry>;
  /** Every file of the folder, streamed (the model digest: model-digest.ts). By URL, from the folder's FILE_LIST. */
  listing(): Promise<DigestFile[]>;
}

export function openSource(spec: ModelSourceSpec, base: string): ModelSource {
  const source = spec.kind === 'url' ? urlSource(spec.url, base) : fileSource(spec.name, spec.files);
  return { ...source, onnx: (file, externalData, onProgress) => onnxFile(source, file, externalData, onProgress) };
}

/**
 * The ONNX file whole, and onnxruntime-web's externalData: the announced external-data files, and the file itself
 * under its own name — the one-session scoring graph references the weights in it (OrtCausalLMOptions.weightsFile),
 * so ONNX Runtime copies them once and no re-encoded copy of the model is made.
 */
async function onnxFile(source: Omit<ModelSource, 'onnx'>, file: string, externalData: readonly string[], onProgress?: ReadProgress): Promise<OnnxFile> {
  const model = await source.bytes(file, onProgress);
  const name = file.split('/').at(-1)!;
  const entries = await Promise.all(externalData.map((path) => source.externalData(path)));
  return { model, weightsFile: name, sessionOptions: { externalData: [...entries, { path: name, data: model }] } };
}

/**
 * GET a same-origin file, reporting progress in decoded bytes: of Content-Length, or — when the response is
 * compressed, so Content-Length counts the compressed bytes — of X-Decoded-Length, which the app's servers send
 * (web/precompress-plugin.ts); without it the total is the bytes so far.
 */
export async function fetchBytes(url: string, onProgress?: (done: number, total: number) => void): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`GET ${url}: HTTP ${res.status}`);
  // A static server's SPA fallback answers a missing file with index.html.
  if (res.headers.get('Content-Type')?.startsWith('text/html')) throw new Error(`GET ${url}: not found (got HTML)`);
  const total = Number(res.headers.get(res.headers.get('Content-Encoding') ? 'X-Decoded-Length' : 'Content-Length')) || 0;
  const parts: Uint8Array[] = [];
  let done = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    parts.push(value);
    done += value.length;
    onProgress?.(done, total || done);
  }
  const out = new Uint8Array(done);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const parseJson = (path: string, bytes: Uint8Array): Record<string, unknown> => {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${path}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
};

function urlSource(url: string, base: string): Omit<ModelSource, 'onnx'> {
  const root = url.replace(/\/$/, '');
  return {
    id: root,
    bytes: (path, onProgress) => fetchBytes(`${root}/${path}`, onProgress),
    async json(path, optional = false) {
      let bytes: Uint8Array;
      try {
        bytes = await fetchBytes(`${root}/${path}`);
      } catch (e) {
        if (optional) return undefined;
        throw e;
      }
      return parseJson(path, bytes);
    },
    externalData: async (path) => ({ path: path.split('/').at(-1)!, data: new URL(`${root}/${path}`, base).href }),
    async listing() {
      const list = parseJson(FILE_LIST, await fetchBytes(`${root}/${FILE_LIST}`)).files as { path: string; size: number }[];
      return list.map(({ path, size }) => ({
        path,
        size,
        async *chunks() {
          const res = await fetch(`${root}/${path}`);
          if (!res.ok || !res.body) throw new Error(`GET ${root}/${path}: HTTP ${res.status}`);
          yield* streamChunks(res.body);
        },
      }));
    },
  };
}

function fileSource(name: string, files: readonly FolderFile[]): Omit<ModelSource, 'onnx'> {
  const byPath = new Map(files.map((f) => [f.path, f.file]));
  const get = (path: string): File => {
    const file = byPath.get(path);
    if (!file) throw new Error(`folder "${name}" has no ${path}`);
    return file;
  };
  const read = async (path: string, onProgress?: (done: number, total: number) => void): Promise<Uint8Array> => {
    const file = get(path);
    onProgress?.(0, file.size);
    const bytes = new Uint8Array(await file.arrayBuffer());
    onProgress?.(bytes.length, bytes.length);
    return bytes;
  };
  return {
    id: `disk:${name}`,
    bytes: read,
    async json(path, optional = false) {
      if (optional && !byPath.has(path)) return undefined;
      return parseJson(path, await read(path));
    },
    externalData: async (path) => ({ path: path.split('/').at(-1)!, data: await read(path) }),
    listing: async () => files.map(({ path, file }) => ({ path, size: file.size, chunks: () => streamChunks(file.stream()) })),
  };
}
