#!/usr/bin/python3
"""The bench's PyTorch peer: the same filter written the way a user would otherwise write it, on the same weights
(read from onnx/model.onnx) and the same candidate calls (token ids from the bench). CPU, float32, one thread
(as onnxruntime-node runs in the bench), process CPU time.

  batch-1:  as public Toolformer reimplementations do it — for every call, three forward passes (L_a, L_b, L_c) over
            the whole sequence, log-softmax over the full vocabulary, one sequence at a time;
  batched:  every distinct sequence once (L_a once per position), sorted by length, right-padded batches of 16.

  /usr/bin/python3 pipeline/bench/peer_torch.py <requests.json> <result.json>
  /usr/bin/python3 pipeline/bench/peer_torch.py rows <rows.json> <result.json>     # the 135M-shape rows (peer_rows.py)

requests.json: {"model": dir, "weights": [...], "positions": [{"noCall": {"ids": [...], "from": n},
                "calls": [{"callOnly": {...}, "withResult": {...}}]}]}
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../onnx/golden'))
from make_goldens import FORWARD, load_weights  # noqa: E402


def main():
    request = json.load(open(sys.argv[1]))
    torch.set_num_threads(1)
    cfg, w = load_weights(request['model'])
    forward = FORWARD[cfg['model_type']]
    weights = request['weights']

    def loss_of(log_probs, ids, start):
        return -sum(weights[t] * log_probs[start + t - 1, ids[start + t]].item() for t in range(len(weights)) if start + t < len(ids))

    positions = request['positions']
    calls = sum(len(p['calls']) for p in positions)

    # batch-1, three passes per call
    c0, t0 = time.process_time(), time.perf_counter()
    batch1 = []
    with torch.no_grad():
        for p in positions:
            for c in p['calls']:
                triple = []
                for seq in (p['noCall'], c['callOnly'], c['withResult']):
                    triple.append(loss_of(forward(w, cfg, seq['ids']).log_softmax(-1), seq['ids'], seq['from']))
                batch1.append(triple)
    one = {'cpuSeconds': time.process_time() - c0, 'wallSeconds': time.perf_counter() - t0, 'forwardPasses': 3 * calls}

    # batched: distinct sequences, length-sorted, right-padded batches of 16
    seqs = []
    for p in positions:
        seqs.append(p['noCall'])
        for c in p['calls']:
            seqs += [c['callOnly'], c['withResult']]
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]['ids']))
    losses = [0.0] * len(seqs)
    c0, t0 = time.process_time(), time.perf_counter()
    passes = 0
    with torch.no_grad():
        for s in range(0, len(order), 16):
            chunk = order[s:s + 16]
            T = max(len(seqs[i]['ids']) for i in chunk)
            ids = torch.zeros(len(chunk), T, dtype=torch.long)
            for b, i in enumerate(chunk):
                ids[b, :len(seqs[i]['ids'])] = torch.tensor(seqs[i]['ids'])
            lp = forward(w, cfg, ids).log_softmax(-1)
            passes += 1
            for b, i in enumerate(chunk):
                losses[i] = loss_of(lp[b], seqs[i]['ids'], seqs[i]['from'])
    batched = {'cpuSeconds': time.process_time() - c0, 'wallSeconds': time.perf_counter() - t0, 'forwardPasses': passes}

    # losses per call in input order, from the batched pass (batch-1 must agree)
    out, k, worst = [], 0, 0.0
    j = 0
    for p in positions:
        no_call = losses[k]
        k += 1
        for _ in p['calls']:
            triple = [no_call, losses[k], losses[k + 1]]
            k += 2
            worst = max(worst, max(abs(a - b) for a, b in zip(triple, batch1[j])))
            j += 1
            out.append(triple)
    json.dump({'torch': torch.__version__, 'threads': torch.get_num_threads(), 'calls': calls, 'batch1': one,
               'batched': batched, 'batch1VsBatchedMaxDiff': worst, 'losses': out}, open(sys.argv[2], 'w'))


if __name__ == '__main__':
    if sys.argv[1] == 'rows':
        from peer_rows import main as rows_main
        rows_main(sys.argv[2], sys.argv[3])
    else:
        main()
