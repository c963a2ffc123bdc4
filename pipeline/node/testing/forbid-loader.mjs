// `node --import ./forbid-loader.mjs …`: any import of tsx (the TypeScript loader) fails with "forbidden: tsx", so a
// test can prove a command was answered in plain JavaScript (start-cache.mjs).
import { register } from 'node:module';

const hook = `
export async function resolve(specifier, context, next) {
  if (/^tsx(\\/.*)?$/.test(specifier)) throw new Error('forbidden: ' + specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
