/**
 * JSON over HTTP to an inference server, as a data pipeline needs it: requests bounded in flight (p-queue), retried
 * with exponential backoff on a refused connection, 429 and 5xx (Retry-After honoured up to the backoff's cap), a
 * per-request timeout that also ends a stalled response, and a cap on the bytes read from one response — so a bad
 * server costs one line and bounded memory, never a hang. The key (an Authorization bearer token) comes from the
 * environment (server-lm.ts), never from a flag that config.json would record.
 */
import PQueue from 'p-queue';

export interface HttpClientOptions {
  /** Requests in flight at once. @default 4 */
  concurrency?: number;
  /** Attempts per request (the first included) on a refused connection, 429 or 5xx. @default 5 */
  attempts?: number;
  /** First backoff, ms; doubled per attempt. @default 500 */
  backoffMs?: number;
  /** Longest backoff, ms (a Retry-After above it is cut to it). @default 8000 */
  maxBackoffMs?: number;
  /** One request, from sending to the last byte of the answer, ms. @default 300000 */
  timeoutMs?: number;
  /** Most bytes read from one answer. @default 256 MiB */
  maxResponseBytes?: number;
  /** Bearer token for the Authorization header. */
  apiKey?: string;
  /** Where a retry is said, one line each. @default nothing */
  onRetry?: (line: string) => void;
}

/** A failure the caller reports as it is: one line naming the server and what went wrong. */
export class ServerError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

export class HttpClient {
  private readonly queue: PQueue;
  private readonly o: Required<Omit<HttpClientOptions, 'apiKey' | 'onRetry'>> & Pick<HttpClientOptions, 'apiKey' | 'onRetry'>;

  constructor(readonly root: string, options: HttpClientOptions = {}) {
    this.o = {
      concurrency: options.concurrency ?? 4,
      attempts: options.attempts ?? 5,
      backoffMs: options.backoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 8000,
      timeoutMs: options.timeoutMs ?? 300_000,
      maxResponseBytes: options.maxResponseBytes ?? 256 * 2 ** 20,
      apiKey: options.apiKey,
      onRetry: options.onRetry,
    };
    this.queue = new PQueue({ concurrency: this.o.concurrency });
  }

  /** GET `path` (relative to the root), parsed. */
  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  /** POST `body` as JSON to `path`, the answer parsed. */
  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, JSON.stringify(body));
  }

  private request<T>(method: string, path: string, body?: string): Promise<T> {
    return this.queue.add(() => this.withRetries<T>(method, path, body)) as Promise<T>;
  }

  private async withRetries<T>(method: string, path: string, body?: string): Promise<T> {
    const url = `${this.root}${path}`;
    for (let attempt = 1; ; attempt++) {
      let wait = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** (attempt - 1));
      let problem: string;
      try {
        const res = await this.once(method, url, body);
        if (res.ok) return res.json as T;
        problem = `HTTP ${res.status}${res.detail ? `: ${res.detail}` : ''}`;
        if (!(res.status === 429 || res.status >= 500)) throw new ServerError(`${method} ${url}: ${problem}`, res.status);
        if (res.retryAfterS !== undefined) wait = Math.min(this.o.maxBackoffMs, res.retryAfterS * 1000);
      } catch (error) {
        if (error instanceof ServerError) throw error;
        problem = describeFetchError(error, this.o.timeoutMs);
      }
      if (attempt >= this.o.attempts) throw new ServerError(`${method} ${url}: ${problem} (after ${attempt} attempts)`);
      this.o.onRetry?.(`${method} ${url}: ${problem}; retrying in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 1} of ${this.o.attempts})`);
      await new Promise((done) => setTimeout(done, wait));
    }
  }

  /** One attempt: status, and the answer parsed when it is 2xx (a body over the cap or not JSON throws). */
  private async once(method: string, url: string, body?: string): Promise<{ ok: boolean; status: number; json?: unknown; detail?: string; retryAfterS?: number }> {
    const signal = AbortSignal.timeout(this.o.timeoutMs);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`;
    const res = await fetch(url, { method, body, headers, signal });
    const text = await readCapped(res, this.o.maxResponseBytes, url);
    if (!res.ok) {
      const retryAfter = Number(res.headers.get('retry-after'));
      return { ok: false, status: res.status, detail: errorDetail(text), retryAfterS: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined };
    }
    try {
      return { ok: true, status: res.status, json: JSON.parse(text) };
    } catch {
      // A body cut short (the server died mid-answer) is retried like a refused connection.
      throw new TruncatedBody(`the answer is not complete JSON (${text.length} bytes${text.length ? `, ending ${JSON.stringify(text.slice(-24))}` : ''})`);
    }
  }
}

class TruncatedBody extends Error {}

/** The body as text, at most `cap` bytes: a larger answer is refused without reading the rest. */
async function readCapped(res: Response, cap: number, url: string): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > cap) {
    await res.body?.cancel();
    throw new ServerError(`${url}: the answer is ${declared} bytes, over the ${cap}-byte limit (--server-max-response-mb)`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.length;
    if (bytes > cap) {
      await reader.cancel();
      throw new ServerError(`${url}: the answer passed the ${cap}-byte limit (--server-max-response-mb) and was not read further`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** An error answer's message, short: OpenAI's {error: {message}} or the text's first line. */
function errorDetail(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: string };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? parsed.message ?? parsed.detail;
    if (message) return String(message).split('\n')[0].slice(0, 200);
  } catch {
    // not JSON
  }
  return text.split('\n')[0].slice(0, 200);
}

/** A failed fetch as a short phrase: refused, timed out, cut, … */
function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof TruncatedBody) return error.message;
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no complete answer within ${timeoutMs / 1000} s (--server-timeout)`;
  const code = e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running?)';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was closed mid-answer';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  return `${e.message ?? String(error)}${e.cause?.message ? ` (${e.cause.message})` : ''}`;
}
