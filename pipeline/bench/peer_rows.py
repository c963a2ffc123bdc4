"""The PyTorch peer at a real model's size (pipeline/bench/real-size.ts; backends.ts also at the bundled GPT-2, through
make_goldens' batched gpt2_forward): the Llama / SmolLM2 forward written in
plain PyTorch the way a user would batch it, on the weights of the very ONNX file the scorer runs, timed on the
scorer's two workloads. CPU, float32, one thread, process CPU time (as onnxruntime-node runs in the bench).

  /usr/bin/python3 pipeline/bench/peer_torch.py rows <rows.json> <result.json>

rows.json: {"model": dir, "rows": [[ids]] (R × L), "from": f, "probe": id, "repeats": n,
            "check": {"rows": c, "logits": path}}   path: ONNX Runtime's float32 logits of the first c rows, [c, L, V]
result:    {"torch", "threads", "linears", "check": {maxAbsLogitDiff, maxAbsLogProbDiff}, "forward" / "losses" /
            "probe": {cpuSeconds, tokensPerSecond}, "lossLogProbs": [R][L - f]}

Workloads, each on all R rows at once, `repeats` times after one warm-up:
  forward  the [R, L, V] logits (what ONNX Runtime's raw forward fetches; the bench's limit)
  forwardOne  (Llama only) the hidden states of all positions and the head at each row's last position: [R, 1, V]
  losses   the scorer's L_a / L_b / L_c read: hidden states of all positions, the LM head and log-softmax only at the
           L - f positions read, the ids gathered (a batched peer's best: the 576 × 49,152 head is a fifth of a
           token's forward FLOPs when run everywhere)
  probe    the p_i read: the head and log-softmax at every position, the next id and the probe id gathered

The weights come from onnx/model.onnx's initializers (python3-onnx), in Optimum's [in, out] layout or this
project's [out, in] + Transpose: every MatMul reading a constant weight, in graph order, is q, k, v, o, gate, up, down
of layer 0, 1, … and then the LM head; norms and the embedding by name. Shapes are checked, and the logits are
compared with ONNX Runtime's on the check rows, so a wrong mapping cannot pass silently.
"""
import json
import os
import time

import numpy as np
import onnx
import torch
from onnx import numpy_helper

LINEARS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']


def load_llama(model_dir):
    """config.json and the weights of onnx/model.onnx as {name: tensor}, every linear as its [in, out] matrix."""
    cfg = json.load(open(os.path.join(model_dir, 'config.json')))
    graph = onnx.load(os.path.join(model_dir, 'onnx/model.onnx')).graph
    inits = {t.name: t for t in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    array = lambda name: torch.from_numpy(numpy_helper.to_array(inits[name]).copy())

    def constant_matrix(name):  # [in, out], or None when `name` is not a constant weight
        if name in inits and len(inits[name].dims) == 2:
            return array(name)
        node = producers.get(name)
        if node is not None and node.op_type == 'Transpose' and node.input[0] in inits and len(inits[node.input[0]].dims) == 2:
            return array(node.input[0]).T.contiguous()
        return None

    matrices = [m for m in (constant_matrix(n.input[1]) for n in graph.node if n.op_type == 'MatMul') if m is not None]
    L, C, I, V = cfg['num_hidden_layers'], cfg['hidden_size'], cfg['intermediate_size'], cfg['vocab_size']
    H, KV = cfg['num_attention_heads'], cfg['num_key_value_heads']
    D = cfg.get('head_dim') or C // H
    want = [[C, H * D], [C, KV * D], [C, KV * D], [H * D, C], [C, I], [C, I], [I, C]]
    if len(matrices) != 7 * L + 1:
        raise SystemExit(f'peer_rows: {len(matrices)} constant MatMul weights in the graph, a {L}-layer Llama has {7 * L + 1}')
    w = {}
    for i in range(L):
        for j, (name, dims) in enumerate(zip(LINEARS, want)):
            m = matrices[7 * i + j]
            if list(m.shape) != dims:
                raise SystemExit(f'peer_rows: MatMul weight {7 * i + j} is {list(m.shape)}, layer {i} {name} is {dims}')
            w[f'{i}.{name}'] = m
        for norm in ('input_layernorm', 'post_attention_layernorm'):
            w[f'{i}.{norm}'] = array(f'model.layers.{i}.{norm}.weight')
    w['head'] = matrices[-1]
    if list(w['head'].shape) != [C, V]:
        raise SystemExit(f'peer_rows: the last MatMul weight is {list(w["head"].shape)}, the LM head is {[C, V]}')
    w['embed'] = array('model.embed_tokens.weight')
    w['norm'] = array('model.norm.weight')
    # q|k|v and gate|up as one matrix each: two fewer products per layer (what a user tuning the peer would do).
    for i in range(L):
        w[f'{i}.qkv'] = torch.cat([w.pop(f'{i}.{n}') for n in ('q_proj', 'k_proj', 'v_proj')], 1).contiguous()
        w[f'{i}.gate_up'] = torch.cat([w.pop(f'{i}.{n}') for n in ('gate_proj', 'up_proj')], 1).contiguous()
    return cfg, w, len(matrices)


def hidden_states(w, cfg, ids):
    """ids [B, S] → the final-normed hidden states [B, S, C] (modeling_llama.py; no cache, no padding)."""
    C, H, KV = cfg['hidden_size'], cfg['num_attention_heads'], cfg['num_key_value_heads']
    D = cfg.get('head_dim') or C // H
    G, eps = H // KV, cfg['rms_norm_eps']
    B, S = ids.shape
    inv_freq = 1.0 / (cfg['rope_theta'] ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))
    freqs = torch.arange(S).float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), -1)
    cos, sin = emb.cos(), emb.sin()  # [S, D]
    mask = torch.full((S, S), float('-inf')).triu(1)  # additive causal mask

    def rms(x, weight):
        return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

    def rope(x):  # [..., S, D]
        return x * cos + torch.cat((-x[..., D // 2:], x[..., :D // 2]), -1) * sin

    x = w['embed'][ids]
    for i in range(cfg['num_hidden_layers']):
        qkv = rms(x, w[f'{i}.input_layernorm']) @ w[f'{i}.qkv']
        q, k, v = qkv.split([H * D, KV * D, KV * D], -1)
        q = rope(q.view(B, S, KV, G, D).permute(0, 2, 3, 1, 4))  # [B, KV, G, S, D]: head h reads KV head h // G
        k = rope(k.view(B, S, KV, 1, D).permute(0, 2, 3, 1, 4))  # [B, KV, 1, S, D]
        v = v.view(B, S, KV, 1, D).permute(0, 2, 3, 1, 4)
        att = ((q @ k.transpose(-1, -2)) * D ** -0.5 + mask).softmax(-1)  # [B, KV, G, S, S]
        y = (att @ v).permute(0, 3, 1, 2, 4).reshape(B, S, H * D)
        x = x + y @ w[f'{i}.o_proj']
        gate, up = (rms(x, w[f'{i}.post_attention_layernorm']) @ w[f'{i}.gate_up']).split(cfg['intermediate_size'], -1)
        x = x + (torch.nn.functional.silu(gate) * up) @ w[f'{i}.down_proj']
    return rms(x, w['norm'])


def blas_library():
    """The BLAS this process mapped: Debian's torch calls libblas.so.3, whichever alternative provides it (the
    reference BLAS of libblas3 is ~20× slower than OpenBLAS's libopenblas0-openmp)."""
    libs = {line.split()[-1] for line in open('/proc/self/maps') if 'blas' in line.split()[-1]}
    return sorted(os.path.realpath(l) for l in libs)


def timed(fn, repeats):
    fn()  # warm-up
    c0 = time.process_time()
    for _ in range(repeats):
        out = fn()
    return out, time.process_time() - c0


def main(request_path, result_path):
    request = json.load(open(request_path))
    torch.set_num_threads(1)
    rows = torch.tensor(request['rows'], dtype=torch.long)
    R, L = rows.shape
    start, probe, repeats = request['from'], request['probe'], request['repeats']
    if json.load(open(os.path.join(request['model'], 'config.json')))['model_type'] == 'gpt2':
        # GPT-2 (the bundled model): make_goldens' batched forward, the head at every position.
        from make_goldens import gpt2_forward, load_weights
        cfg, w = load_weights(request['model'])
        linears = 0
        logits_of = lambda r: gpt2_forward(w, cfg, r)
        last_logits = None  # make_goldens' forward runs the head everywhere: no one-position forward
        hidden_then_head = lambda r, a, b: gpt2_forward(w, cfg, r)[:, a:b]
    else:
        cfg, w, linears = load_llama(request['model'])
        logits_of = lambda r: hidden_states(w, cfg, r) @ w['head']
        last_logits = lambda r: hidden_states(w, cfg, r)[:, -1:] @ w['head']
        hidden_then_head = lambda r, a, b: hidden_states(w, cfg, r)[:, a:b] @ w['head']

    with torch.inference_mode():
        def forward():
            return logits_of(rows)

        def losses():  # log p(ids[t] | ids[<t]) for t in [start, L): the head at positions t - 1 only
            return hidden_then_head(rows, start - 1, L - 1).log_softmax(-1).gather(-1, rows[:, start:, None])[..., 0]

        def probes():  # every position: log p(next id) and log p(probe)
            lp = logits_of(rows).log_softmax(-1)
            return lp[:, :-1].gather(-1, rows[:, 1:, None])[..., 0], lp[..., probe]

        check = request['check']
        c = check['rows']
        ort_logits = torch.from_numpy(np.fromfile(check['logits'], dtype=np.float32).reshape(c, L, -1))
        ours = logits_of(rows[:c])
        logit_diff = (ours - ort_logits).abs().max().item()
        logprob_diff = (ours.log_softmax(-1) - ort_logits.log_softmax(-1)).abs().max().item()
        del ours, ort_logits

        tokens = R * L * repeats
        _, forward_s = timed(forward, repeats)
        loss_lp, losses_s = timed(losses, repeats)
        _, probe_s = timed(probes, repeats)
        forward_one_s = timed(lambda: last_logits(rows), repeats)[1] if last_logits else None
    rate = lambda s: {'cpuSeconds': s, 'tokensPerSecond': tokens / s}
    json.dump({
        'torch': torch.__version__, 'threads': torch.get_num_threads(), 'blas': blas_library(), 'linears': linears,
        'check': {'rows': c, 'maxAbsLogitDiff': logit_diff, 'maxAbsLogProbDiff': logprob_diff},
        'forward': rate(forward_s), 'forwardOne': rate(forward_one_s) if forward_one_s else None, 'losses': rate(losses_s), 'probe': rate(probe_s),
        'lossLogProbs': loss_lp.tolist(),
    }, open(result_path, 'w'))
