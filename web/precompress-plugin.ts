/**
 * Vite plugin: compressed responses for what the first visit downloads — onnxruntime-web's `.wasm`, the model's
 * `.onnx`, the app's scripts and the data files — on the production build and on the dev server.
 *
 * - build: after the bundle (and the models and corpus the repo-files plugin copies), every compressible file of the
 *   output over 1 kB gets a brotli sibling `<file>.br` (quality 6: on the 14.3 MB WASM runtime 2.78 MB in ~0.8 s,
 *   against 2.70 MB in ~2.8 s at 9 and 2.36 MB in ~60 s at 11 — measured here; the model's fp32 weights barely
 *   compress at any level). Any static host that serves precompressed files (nginx `brotli_static`, Caddy
 *   `precompressed`) serves these as they are.
 * - preview (`vite preview`): a request whose `Accept-Encoding` names `br` gets the `.br` sibling with
 *   `Content-Encoding: br`. Vite's preview server gzips only text types on the fly; `.wasm` and `.onnx` went out whole
 *   (the issue measured 36.7 MB for a first visit).
 * - dev (`npm run web`): `.wasm` and `.onnx` responses are compressed on the fly, once per file (kept in memory
 *   until the file changes), and so is every text response (scripts, JSON) — Vite's dev server sends them whole, and
 *   its modules are unminified: the knowledge base's module was 13.4 MB, mathjs 5.7 MB, of a 34.7 MB first visit
 *   (measured here); 13.8 MB with them compressed.
 *
 * Written here (~100 lines, node:zlib) rather than taken from npm: the compression plugins on npm write the files but
 * leave serving them to the host, and neither of Vite's servers serves precompressed files.
 */
import { brotliCompress, constants } from 'node:zlib';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Connect, Plugin } from 'vite';

const compress = promisify(brotliCompress);

/** Extension → Content-Type of the compressible files (application/wasm: what WebAssembly.instantiateStreaming needs). */
const TYPES: Record<string, string> = {
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml',
};
/** Smaller files are not worth a second request's bytes of headers. */
const MIN_BYTES = 1024;
const QUALITY = 6;

const brotli = (bytes: Buffer) =>
  compress(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

/** Write `<file>.br` beside every compressible file under `dir` that compression makes smaller. @returns how many */
export async function writeBrotliSiblings(dir: string): Promise<number> {
  const files = filesUnder(dir).filter((f) => TYPES[extname(f)] && statSync(f).size >= MIN_BYTES);
  const written = await Promise.all(files.map(async (f) => {
    const raw = readFileSync(f);
    const packed = await brotli(raw);
    if (packed.length >= raw.length) return 0;
    writeFileSync(`${f}.br`, packed);
    return 1;
  }));
  return written.reduce<number>((a, b) => a + b, 0);
}

/** Content types worth compressing on the fly. */
const TEXT = /javascript|json|css|html|text\/|xml|svg/;
/** Brotli quality for the dev server's on-the-fly compression: fast (4) rather than small. */
const DEV_QUALITY = 4;

/**
 * Dev server middleware: buffer a text response (a module Vite transformed, a JSON file) and send it brotli-compressed
 * when the client accepts it. Responses already encoded, small, or of other types go out as they were.
 */
function compressText(headers: Record<string, string>): Connect.NextHandleFunction {
  return (req, res, next) => {
    if (req.method !== 'GET' || !acceptsBrotli(req)) return next();
    const chunks: Buffer[] = [];
    const { write, end, writeHead } = res;
    let status: number | undefined;
    res.writeHead = ((code: number, ...rest: unknown[]) => {
      status = code;
      const head = rest.find((r) => typeof r === 'object' && r !== null) as Record<string, string | number | string[]> | undefined;
      for (const [k, v] of Object.entries(head ?? {})) res.setHeader(k, v);
      return res;
    }) as typeof res.writeHead;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk) chunks.push(Buffer.from(chunk as string, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined));
      const body = Buffer.concat(chunks);
      const restore = () => {
        res.write = write;
        res.end = end;
        res.writeHead = writeHead;
        if (status !== undefined) res.statusCode = status;
      };
      const type = String(res.getHeader('Content-Type') ?? '');
      if (body.length < MIN_BYTES || !TEXT.test(type) || res.getHeader('Content-Encoding') || res.statusCode === 304) {
        restore();
        return res.end(body);
      }
      compress(body, { params: { [constants.BROTLI_PARAM_QUALITY]: DEV_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }).then((packed) => {
        restore();
        res.removeHeader('Content-Length');
        sendBrotli(res, type, packed, headers, body.length);
      }, (error: unknown) => {
        restore();
        next(error);
      });
      return res;
    }) as typeof res.end;
    next();
  };
}

const acceptsBrotli = (req: Connect.IncomingMessage) => /\bbr\b/.test(String(req.headers['accept-encoding'] ?? ''));

/**
 * The header giving a compressed response's size once decoded: Content-Length is the compressed size, and the page's
 * download progress counts decoded bytes (src/model-source.ts fetchBytes).
 */
export const DECODED_LENGTH = 'X-Decoded-Length';

function sendBrotli(res: Parameters<Connect.NextHandleFunction>[1], type: string, body: Buffer, headers: Record<string, string>, decodedLength: number): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader(DECODED_LENGTH, decodedLength);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Encoding', 'br');
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/** The file a request names under `root`, or null (no `..` escapes, no query). */
function fileIn(root: string, url: string): string | null {
  const file = normalize(join(root, decodeURIComponent(url.split('?')[0])));
  return file.startsWith(root.endsWith(sep) ? root : root + sep) ? file : null;
}

/**
 * `headers`: sent with every compressed response (the isolation headers). `mounts`: URL prefixes served from other
 * folders (the repo-files plugin's). The dev server compresses only files its `server.fs.allow` lets it serve.
 */
export function precompress(options: { headers: Record<string, string>; mounts: { prefix: string; dir: string }[] }): Plugin {
  let outDir = '';
  let root = '';
  const cache = new Map<string, { mtimeMs: number; body: Buffer }>();
  return {
    name: 'toolformer-precompress',
    configResolved(config) {
      root = config.root;
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      async handler() {
        if (outDir && existsSync(outDir)) await writeBrotliSiblings(outDir);
      },
    },
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.method !== 'GET' || !acceptsBrotli(req)) return next();
        const path = (req.url ?? '/').split('?')[0];
        const file = fileIn(outDir, path.endsWith('/') ? `${path}index.html` : path);
        const type = file && TYPES[extname(file)];
        if (!file || !type || !existsSync(`${file}.br`)) return next();
        sendBrotli(res, type, readFileSync(`${file}.br`), options.headers, statSync(file).size);
      });
    },
    configureServer(server) {
      const allowed = server.config.server.fs.allow.map((dir) => resolve(dir));
      server.middlewares.use(compressText(options.headers));
      server.middlewares.use((req, res, next) => {
        const url = req.url ?? '';
        const ext = extname(url.split('?')[0]);
        if (req.method !== 'GET' || !acceptsBrotli(req) || (ext !== '.wasm' && ext !== '.onnx')) return next();
        const mount = options.mounts.find((m) => url.startsWith(m.prefix));
        const file = url.startsWith('/@fs/') ? fileIn('/', url.slice('/@fs'.length))
          : mount ? fileIn(mount.dir, url.slice(mount.prefix.length))
          : fileIn(root, url);
        if (!file || !allowed.some((dir) => file.startsWith(dir + sep)) || !existsSync(file)) return next();
        const { mtimeMs, size } = statSync(file);
        const hit = cache.get(file);
        const pending = hit && hit.mtimeMs === mtimeMs ? Promise.resolve(hit.body) : brotli(readFileSync(file));
        pending.then((body) => {
          cache.set(file, { mtimeMs, body });
          sendBrotli(res, TYPES[ext], body, options.headers, size);
        }, next);
      });
    },
  };
}
