import { describe, expect, it } from 'vitest';
import { folderDtypes, folderFiles, folderProblem, pickDtype } from './model-folder.ts';

const entry = (relativePath: string) => ({ relativePath, file: new File([relativePath], relativePath.split('/').at(-1)!) });

describe('a model folder opened from disk', () => {
  it('drops the folder name from directory-input paths and lists the dtypes its onnx/ files give', () => {
    const { name, files } = folderFiles(['SmolLM2/config.json', 'SmolLM2/tokenizer.json', 'SmolLM2/onnx/model_q4f16.onnx',
      'SmolLM2/onnx/model_q4f16.onnx_data', 'SmolLM2/onnx/model.onnx', 'SmolLM2/README.md'].map(entry));
    expect(name).toBe('SmolLM2');
    const paths = files.map((f) => f.path);
    expect(paths).toContain('onnx/model_q4f16.onnx_data');
    expect(folderDtypes(paths)).toEqual(['fp32', 'q4f16']);
    expect(folderProblem(name, paths)).toBeNull();
    expect(files.find((f) => f.path === 'config.json')!.file.size).toBe('SmolLM2/config.json'.length);
  });

  it('finds the model folder inside a dropped parent folder, and ignores files outside it', () => {
    const { name, files } = folderFiles(['models/gpt2/config.json', 'models/gpt2/onnx/model.onnx', 'models/notes.txt'].map(entry));
    expect(name).toBe('gpt2');
    expect(files.map((f) => f.path)).toEqual(['config.json', 'onnx/model.onnx']);
  });

  it('picks the asked dtype when the folder has it, else fp32, else its first', () => {
    expect(pickDtype(['fp32', 'q4f16'], 'q4f16')).toBe('q4f16');
    expect(pickDtype(['fp32', 'q4f16'], 'fp16')).toBe('fp32');
    expect(pickDtype(['q4', 'q4f16'], null)).toBe('q4');
    expect(pickDtype([], null)).toBeUndefined();
  });

  it('says in one line what a folder lacks: a tokenizer, any ONNX file, or all but a legacy decoder', () => {
    expect(folderProblem('x', ['config.json', 'onnx/model.onnx'])).toBe(
      'folder "x" is not a Hugging Face ONNX causal-LM folder: missing tokenizer.json; it has config.json, onnx/model.onnx');
    expect(folderProblem('x', ['config.json', 'tokenizer.json'])).toMatch(/missing onnx\/model\*\.onnx \(one of model\.onnx, model_fp16\.onnx/);
    const legacy = folderProblem('old', ['config.json', 'tokenizer.json', 'onnx/decoder_model_merged.onnx']);
    expect(legacy).toMatch(/only the legacy onnx\/decoder_model_merged\.onnx of older exports/);
    expect(legacy!.split('\n')).toHaveLength(1);
    expect(folderProblem('empty', [])).toMatch(/missing config\.json, tokenizer\.json, onnx\/model\*\.onnx .*; it has no files$/);
  });
});
