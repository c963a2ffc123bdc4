#!/usr/bin/python3
"""Golden numbers from an independent implementation (development time only; tests never run Python).

For each model directory it reads the weights straight from onnx/model.onnx's initializers (python3-onnx), the
hyper-parameters from config.json and the BPE from tokenizer.json, then computes in plain PyTorch (python3-torch,
float32, no KV cache, one sequence at a time):
  - tokenization of the fixed texts (byte-level BPE with the GPT-2 pre-tokenizer, ASCII texts only),
  - logits of one sequence (the first `vocabHead` vocabulary entries at every position, plus the log-sum-exp),
  - L_a, L_b, L_c for every call of cases.json, the call as a prefix of the text (paper footnote 3),
  - a greedy continuation (argmax, recomputed from scratch at every step).
None of this imports the project's TypeScript or its graph builders: GPT-2, Llama and Qwen2 are written out below
from the Hugging Face modelling code's definitions.

  /usr/bin/python3 pipeline/onnx/golden/make_goldens.py            # all models, writes pipeline/onnx/golden/<model>.json
"""
import json
import math
import os
import re
import sys

import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '../../..'))
MODELS = ['tiny-random', 'tiny-llama', 'tiny-qwen2', 'default']


# ---------- tokenizer: byte-level BPE (GPT-2) ----------

def bytes_to_unicode():
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(ord('\xa1'), ord('\xac') + 1)) + list(range(ord('\xae'), ord('\xff') + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


# GPT-2's pre-tokenizer with \p{L} / \p{N} restricted to ASCII letters / digits (the texts are ASCII).
PRETOKENIZE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


class BPE:
    def __init__(self, tokenizer_json):
        model = tokenizer_json['model']
        assert model['type'] == 'BPE'
        self.vocab = model['vocab']
        merges = [tuple(m.split(' ')) if isinstance(m, str) else tuple(m) for m in model['merges']]
        self.ranks = {pair: i for i, pair in enumerate(merges)}
        self.byte_map = bytes_to_unicode()

    def word(self, piece):
        parts = [self.byte_map[b] for b in piece.encode('utf-8')]
        while len(parts) > 1:
            pairs = [(self.ranks.get((a, b), math.inf), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
            rank, i = min(pairs)
            if rank == math.inf:
                break
            parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]
        return [self.vocab[p] for p in parts]

    def encode(self, text):
        assert all(ord(ch) < 128 for ch in text), f'golden texts must be ASCII: {text!r}'
        return [i for piece in PRETOKENIZE.findall(text) for i in self.word(piece)]


# ---------- models (float32, no cache) ----------
# ids: a list (one sequence → logits [S, V]) or a LongTensor [B, S] (right-padded rows → logits [B, S, V]; with right
# padding the causal mask alone keeps padding out of every real position).

def gpt2_forward(w, cfg, ids):
    C, H = cfg['n_embd'], cfg['n_head']
    D = C // H
    eps = cfg['layer_norm_epsilon']
    t = torch.as_tensor(ids)
    S = t.shape[-1]
    x = w['transformer.wte.weight'][t] + w['transformer.wpe.weight'][torch.arange(S)]
    ln = lambda x, p: torch.nn.functional.layer_norm(x, (C,), w[f'transformer.{p}.weight'], w[f'transformer.{p}.bias'], eps)
    conv1d = lambda x, p: x @ w[f'transformer.{p}.weight'] + w[f'transformer.{p}.bias']  # GPT-2 Conv1D: [in, out]
    causal = torch.tril(torch.ones(S, S, dtype=torch.bool))
    lead = x.shape[:-2]  # () or (B,)
    for i in range(cfg['n_layer']):
        q, k, v = conv1d(ln(x, f'h.{i}.ln_1'), f'h.{i}.attn.c_attn').split(C, dim=-1)
        q, k, v = (z.view(*lead, S, H, D).transpose(-2, -3) for z in (q, k, v))  # (…, H, S, D)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(D)
        att = att.masked_fill(~causal, float('-inf')).softmax(-1)
        y = (att @ v).transpose(-2, -3).reshape(*lead, S, C)
        x = x + conv1d(y, f'h.{i}.attn.c_proj')
        h = conv1d(ln(x, f'h.{i}.ln_2'), f'h.{i}.mlp.c_fc')
        h = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))  # gelu_new
        x = x + conv1d(h, f'h.{i}.mlp.c_proj')
    return ln(x, 'ln_f') @ w['transformer.wte.weight'].T


def llama_forward(w, cfg, ids):
    """LlamaForCausalLM / Qwen2ForCausalLM (Qwen2 = Llama + q/k/v biases), following modeling_llama.py."""
    C, H, KV = cfg['hidden_size'], cfg['num_attention_heads'], cfg['num_key_value_heads']
    D = cfg.get('head_dim') or C // H
    eps, theta = cfg['rms_norm_eps'], cfg['rope_theta']
    t = torch.as_tensor(ids)
    S = t.shape[-1]

    def rms(x, name):
        var = x.pow(2).mean(-1, keepdim=True)
        return w[name] * (x * torch.rsqrt(var + eps))

    def linear(x, name):
        y = x @ w[name + '.weight'].T  # nn.Linear: [out, in]
        return y + w[name + '.bias'] if name + '.bias' in w else y

    inv_freq = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))
    freqs = torch.arange(S).float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()  # (S, D)

    def rotate_half(x):
        return torch.cat((-x[..., D // 2:], x[..., :D // 2]), dim=-1)

    causal = torch.tril(torch.ones(S, S, dtype=torch.bool))
    x = w['model.embed_tokens.weight'][t]
    lead = x.shape[:-2]  # () or (B,)
    for i in range(cfg['num_hidden_layers']):
        p = f'model.layers.{i}'
        h = rms(x, f'{p}.input_layernorm.weight')
        q = linear(h, f'{p}.self_attn.q_proj').view(*lead, S, H, D).transpose(-2, -3)  # (…, H, S, D)
        k = linear(h, f'{p}.self_attn.k_proj').view(*lead, S, KV, D).transpose(-2, -3)  # (…, KV, S, D)
        v = linear(h, f'{p}.self_attn.v_proj').view(*lead, S, KV, D).transpose(-2, -3)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // KV, dim=-3)  # repeat_kv: head h reads KV head h // (H / KV)
        v = v.repeat_interleave(H // KV, dim=-3)
        att = (q @ k.transpose(-1, -2)) * D ** -0.5
        att = att.masked_fill(~causal, float('-inf')).softmax(-1)
        y = (att @ v).transpose(-2, -3).reshape(*lead, S, H * D)
        x = x + linear(y, f'{p}.self_attn.o_proj')
        h = rms(x, f'{p}.post_attention_layernorm.weight')
        gate = linear(h, f'{p}.mlp.gate_proj')
        x = x + linear(torch.nn.functional.silu(gate) * linear(h, f'{p}.mlp.up_proj'), f'{p}.mlp.down_proj')
    head = w['model.embed_tokens.weight'] if cfg.get('tie_word_embeddings', True) else w['lm_head.weight']
    return rms(x, 'model.norm.weight') @ head.T


FORWARD = {'gpt2': gpt2_forward, 'llama': llama_forward, 'qwen2': llama_forward}


# ---------- goldens ----------

def load_weights(d):
    """config.json and the fp32 weights of onnx/model.onnx (initializer name → tensor)."""
    cfg = json.load(open(os.path.join(d, 'config.json')))
    w = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in onnx.load(os.path.join(d, 'onnx/model.onnx')).graph.initializer}
    return cfg, w


def golden(model_name, cases):
    d = os.path.join(ROOT, 'models', model_name)
    cfg, w = load_weights(d)
    tok = BPE(json.load(open(os.path.join(d, 'tokenizer.json'))))
    forward = FORWARD[cfg['model_type']]
    bos = [cfg['bos_token_id']] if isinstance(cfg.get('bos_token_id'), int) else []
    weights = cases['weights']

    def log_probs(ids):
        with torch.no_grad():
            return forward(w, cfg, ids).log_softmax(-1)

    def loss(ids, start):
        lp = log_probs(ids)
        return -sum(weights[t] * lp[start + t - 1, ids[start + t]].item() for t in range(len(weights)) if start + t < len(ids))

    scoring = []
    for case in cases['scoring']:
        text, at, sep = case['text'], case['at'], case['separator']
        prefix, nxt = tok.encode(text[:at]), tok.encode(text[at:])[:len(weights)]
        seq = lambda call: bos + (tok.encode(call + sep) if call else []) + prefix + nxt
        start = lambda ids: len(ids) - len(nxt)
        no_call_ids = seq('')
        no_call = loss(no_call_ids, start(no_call_ids))
        calls = []
        for c in case['calls']:
            a, b = seq(c['callOnly']), seq(c['withResult'])
            calls.append({'callOnlyIds': a, 'withResultIds': b,
                          'L_a': no_call, 'L_b': loss(a, start(a)), 'L_c': loss(b, start(b))})
        scoring.append({'prefixIds': prefix, 'nextIds': nxt, 'noCallIds': no_call_ids, 'calls': calls})

    ids = bos + tok.encode(cases['logits']['text'])
    with torch.no_grad():
        logits = forward(w, cfg, ids)
    k = cases['logits']['vocabHead']
    logits_out = {'ids': ids, 'head': [[round(v, 6) for v in row[:k].tolist()] for row in logits],
                  'logSumExp': [round(v, 6) for v in logits.logsumexp(-1).tolist()]}

    prompt = tok.encode(cases['greedy']['prompt'])
    out = list(prompt)
    for _ in range(cases['greedy']['newTokens']):
        with torch.no_grad():
            out.append(int(forward(w, cfg, out)[-1].argmax()))
    return {
        'model': f'models/{model_name}',
        'modelType': cfg['model_type'],
        'by': 'pipeline/onnx/golden/make_goldens.py (PyTorch %s, float32, no KV cache)' % torch.__version__,
        'bos': bos,
        'scoring': scoring,
        'logits': logits_out,
        'greedy': {'promptIds': prompt, 'ids': out[len(prompt):]},
    }


def main():
    cases = json.load(open(os.path.join(HERE, 'cases.json')))
    torch.manual_seed(0)
    for name in sys.argv[1:] or MODELS:
        g = golden(name, cases)
        path = os.path.join(HERE, f'{name}.json')
        with open(path, 'w') as f:
            json.dump(g, f, indent=1)
            f.write('\n')
        print(f'wrote {path}: {sum(len(s["calls"]) for s in g["scoring"])} calls, greedy {g["greedy"]["ids"]}')


if __name__ == '__main__':
    main()
