"""Fits Medusa heads to self-distillation data and writes them as GGUF (lmforge train-heads).

Called by cli/train-heads.ts in a venv with torch==2.13.0 (CPU) and gguf==0.19.0:
    python train_medusa.py --data DIR --target MODEL.gguf --heads 3 --out HEADS.gguf

DIR holds hidden.f32 and samples.json (cli/training/self-distill.ts). Head k (0-based)
reads the hidden state h from which a token was sampled and predicts the token k + 2
positions on: logits = O (h + SiLU(W_k h + b_k)), O the target's own output matrix (tied,
kept frozen). W_k and b_k start at zero, so each head starts as the target's next-token
head (Medusa's initialisation). Prints one JSON line of results at the end.
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import gguf


def target_output(path: str) -> np.ndarray:
    """The target's output matrix as float32 (vocab x embedding), dequantized."""
    reader = gguf.GGUFReader(path)
    tensors = {t.name: t for t in reader.tensors}
    tensor = tensors.get("output.weight") or tensors.get("token_embd.weight")
    if tensor is None:
        raise SystemExit(f"{path} has neither output.weight nor token_embd.weight")
    matrix = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
    return np.array(matrix.reshape(int(tensor.shape[1]), int(tensor.shape[0])), dtype=np.float32)


def dataset(folder: str, heads: int):
    """Hidden states and each head's target token (-100 where the answer ends first)."""
    with open(os.path.join(folder, "samples.json")) as f:
        meta = json.load(f)
    width = meta["embedding"]
    hidden = np.fromfile(os.path.join(folder, "hidden.f32"), dtype=np.float32).reshape(-1, width)
    targets = np.full((hidden.shape[0], heads), -100, dtype=np.int64)
    sample_of = np.zeros(hidden.shape[0], dtype=np.int64)
    row = 0
    for index, sample in enumerate(meta["samples"]):
        answer = sample["answer"]
        for j in range(sample["rows"]):
            for k in range(heads):
                if j + 1 + k < len(answer):
                    targets[row + j, k] = answer[j + 1 + k]
        sample_of[row:row + sample["rows"]] = index
        row += sample["rows"]
    assert row == hidden.shape[0], f"samples.json counts {row} rows, hidden.f32 holds {hidden.shape[0]}"
    return hidden, targets, sample_of, meta


class Heads(torch.nn.Module):
    def __init__(self, heads: int, width: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(heads, width, width))
        self.bias = torch.nn.Parameter(torch.zeros(heads, width))

    def forward(self, h: torch.Tensor, k: int) -> torch.Tensor:
        return h + torch.nn.functional.silu(h @ self.weight[k].T + self.bias[k])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--heads", type=int, default=3)
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--target-name", default="")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    started = time.time()

    output = torch.from_numpy(target_output(args.target))
    hidden, targets, sample_of, meta = dataset(args.data, args.heads)
    width = hidden.shape[1]
    if output.shape[1] != width:
        raise SystemExit(f"hidden states are {width} wide, the output matrix {output.shape[1]}")
    # Whole answers are held out, so validation is on text the heads never saw.
    held_out = (sample_of % 10) == 9
    x_train, y_train = torch.from_numpy(hidden[~held_out]), torch.from_numpy(targets[~held_out])
    x_val, y_val = torch.from_numpy(hidden[held_out]), torch.from_numpy(targets[held_out])

    # The softmax of training runs over the tokens the answers use (a few thousand of the
    # vocabulary): a CPU can afford that, and the rest, which the model did not write here,
    # keep the ranking the target's own head gives them (heads start as that head). Accuracy
    # below is measured over the whole vocabulary, as the heads are used.
    used = torch.unique(y_train[y_train != -100])
    lookup = torch.full((output.shape[0],), -100, dtype=torch.long)
    lookup[used] = torch.arange(len(used))
    y_train_sub = torch.where(y_train == -100, y_train, lookup[y_train.clamp(min=0)])
    output_sub = output[used]

    model = Heads(args.heads, width)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    steps = args.epochs * ((len(x_train) + args.batch - 1) // args.batch)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=max(1, steps), pct_start=0.1)
    for epoch in range(args.epochs):
        order = torch.randperm(len(x_train))
        total = 0.0
        for start in range(0, len(order), args.batch):
            index = order[start:start + args.batch]
            h, y = x_train[index], y_train_sub[index]
            loss = sum(
                torch.nn.functional.cross_entropy(model(h, k) @ output_sub.T, y[:, k], ignore_index=-100)
                for k in range(args.heads)
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total += loss.item() * len(index)
        print(json.dumps({"epoch": epoch + 1, "loss": total / max(1, len(x_train))}), flush=True)

    accuracy = []
    with torch.no_grad():
        for k in range(args.heads):
            valid = y_val[:, k] != -100
            hits = 0
            for start in range(0, len(x_val), 1024):
                h, y, v = x_val[start:start + 1024], y_val[start:start + 1024, k], valid[start:start + 1024]
                hits += int(((model(h, k) @ output.T).argmax(dim=1) == y)[v].sum())
            accuracy.append(hits / max(1, int(valid.sum())))

    writer = gguf.GGUFWriter(args.out, "medusa")
    writer.add_name(f"medusa heads for {args.target_name or os.path.basename(args.target)}")
    writer.add_uint32("medusa.head_count", args.heads)
    writer.add_uint32("medusa.embedding_length", width)
    writer.add_uint32("medusa.vocab_size", int(output.shape[0]))
    writer.add_bool("medusa.tied_output", True)
    writer.add_string("medusa.target_name", args.target_name)
    for k in range(args.heads):
        # A (rows = outputs, columns = inputs) array is a ggml matrix of dims [inputs, outputs].
        writer.add_tensor(f"medusa.{k}.fc.weight", model.weight[k].detach().numpy().astype(np.float32))
        writer.add_tensor(f"medusa.{k}.fc.bias", model.bias[k].detach().numpy().astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(json.dumps({
        "out": args.out,
        "positions": int(len(x_train)),
        "held_out": int(len(x_val)),
        "softmax_tokens": int(len(used)),
        "accuracy": accuracy,
        "seconds": time.time() - started,
    }), flush=True)


if __name__ == "__main__":
    main()
