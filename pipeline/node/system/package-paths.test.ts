import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INPUTS, DEFAULT_MODEL } from './package-paths.ts';

describe('the bundled defaults resolve from the package, whatever the working directory', () => {
  it('model and corpus paths are absolute and exist', () => {
    for (const p of [...DEFAULT_INPUTS, join(DEFAULT_MODEL, 'onnx/model.onnx')]) {
      expect(isAbsolute(p)).toBe(true);
      expect(existsSync(p)).toBe(true);
    }
  });
});
