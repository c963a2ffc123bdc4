import { describe, expect, it } from 'vitest';
import { decoderSpecFromConfig } from './ort-decoder-spec.ts';

describe('decoderSpecFromConfig', () => {
  it('reads GPT-2 fields', () => {
    expect(
      decoderSpecFromConfig({ model_type: 'gpt2', n_layer: 2, n_head: 4, n_embd: 32, n_positions: 256, eos_token_id: 263, pad_token_id: 263 }),
    ).toEqual({ numLayers: 2, numKvHeads: 4, headDim: 8, maxLength: 256, eosTokenIds: [263], padTokenId: 263 });
  });

  it('reads Llama-family fields with grouped-query attention (SmolLM2-135M)', () => {
    const config = {
      model_type: 'llama', num_hidden_layers: 30, num_attention_heads: 9, num_key_value_heads: 3, hidden_size: 576,
      max_position_embeddings: 8192, eos_token_id: 0, bos_token_id: 0,
    };
    expect(decoderSpecFromConfig(config)).toEqual({ numLayers: 30, numKvHeads: 3, headDim: 64, maxLength: 8192, eosTokenIds: [0], padTokenId: 0 });
  });

  it('prefers an explicit head_dim and accepts a list of eos ids (Qwen3-style)', () => {
    const config = {
      model_type: 'qwen3', num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 8, hidden_size: 1024,
      head_dim: 128, max_position_embeddings: 40960, eos_token_id: [151645, 151643], pad_token_id: 151643,
    };
    expect(decoderSpecFromConfig(config)).toMatchObject({ numKvHeads: 8, headDim: 128, eosTokenIds: [151645, 151643], padTokenId: 151643 });
  });

  it("adds generation_config.json's end tokens to config.json's, once each (Qwen2.5-Instruct names <|im_end|> there)", () => {
    const config = { model_type: 'qwen2', num_hidden_layers: 2, num_attention_heads: 8, num_key_value_heads: 2, hidden_size: 64, max_position_embeddings: 256, eos_token_id: 151643 };
    expect(decoderSpecFromConfig(config, { eos_token_id: [151645, 151643] }).eosTokenIds).toEqual([151643, 151645]);
    expect(decoderSpecFromConfig(config, {}).eosTokenIds).toEqual([151643]);
  });

  it('says which fields are missing', () => {
    expect(() => decoderSpecFromConfig({ model_type: 'llama', hidden_size: 64 })).toThrow(
      'config.json (model_type llama): cannot derive numLayers, numKvHeads, headDim, maxLength',
    );
  });
});
