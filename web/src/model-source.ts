/**
 * Where the worker reads a model folder from (Hugging Face layout, paths relative to the folder): the page's own
 * origin by URL (/models/<name>/), or Files the user opened from disk (a directory input or a dropped folder; File
 * objects cross to the worker by structured clone, and their bytes are read only when asked). Worker-side.
 */
import { FILE_LIST, streamChunks, type DigestFile } from './model-digest.ts';
import type { FolderFile } from './model-folder.ts';

/** What the page sends in a `load` request: a folder URL, or the opened folder's files. */
export type ModelSourceSpec = { kind: 'url'; url: string } | { kind: 'files'; name: string; files: FolderFile[] };

/** onnxruntime-web's `externalData` entry: by URL (onnxruntime-web fetches it) or the bytes themselves. */
export interface ExternalDataEntry {
  path: string;
  data: string | Uint8Array;
}

export interface ModelSource {
  /** Shown on the page and recorded as CausalLM.id: the URL, or "disk:<folder name>". */
  readonly id: string;
  /** A file's bytes, reporting progress in bytes. */
  bytes(path: string, onProgress?: (done: number, total: number) => void): Promise<Uint8Array>;
  /** A JSON file, parsed; undefined for a missing optional one. */
  json(path: string, optional?: boolean): Promise<Record<string, unknown> | undefined>;
  /** An external-data file for onnxruntime-web, under its own name (`model_q4f16.onnx_data` for onnx/ that). */
  externalData(path: string): Promise<ExternalDataEntry>;
  /** Every file of the folder, streamed (the model digest: model-digest.ts). By URL, from the folder's FILE_LIST. */
  listing(): Promise<DigestFile[]>;
}

export function openSource(spec: ModelSourceSpec, base: string): ModelSource {
  return spec.kind === 'url' ? urlSource(spec.url, base) : fileSource(spec.name, spec.files);
}

/** GET a same-origin file, reporting progress by Content-Length. */
export async function fetchBytes(url: string, onProgress?: (done: number, total: number) => void): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`GET ${url}: HTTP ${res.status}`);
  // A static server's SPA fallback answers a missing file with index.html.
  if (res.headers.get('Content-Type')?.startsWith('text/html')) throw new Error(`GET ${url}: not found (got HTML)`);
  const total = Number(res.headers.get('Content-Length')) || 0;
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

function urlSource(url: string, base: string): ModelSource {
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

function fileSource(name: string, files: readonly FolderFile[]): ModelSource {
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
