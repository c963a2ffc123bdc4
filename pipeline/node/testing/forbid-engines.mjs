// `node --import ./forbid-engines.mjs …`: any import of a heavy engine (a model runtime, mathjs, date-fns, the language
// detector) fails with "forbidden at start-up: <name>", so a test can prove a command never loads one.
import { register } from 'node:module';

const hook = `
const FORBIDDEN = /^(mathjs|eld(\\/.*)?|date-fns(\\/.*)?|@date-fns\\/utc|onnxruntime-node|onnxruntime-web(\\/.*)?|@huggingface\\/transformers)$/;
export async function resolve(specifier, context, next) {
  if (FORBIDDEN.test(specifier)) throw new Error('forbidden at start-up: ' + specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
