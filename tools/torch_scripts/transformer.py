"""A tiny causal language model: nn.TransformerEncoder, AdamW, linear warmup then decay."""

import math

import numpy as np


def run(torch, steps=20, init=lambda model: None):
    """Trains ``steps`` mini-batches of next-token prediction and returns each step's loss."""
    nn = torch.nn
    torch.manual_seed(0)
    vocab, width, length = 16, 32, 12

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, width)
            self.pos = nn.Parameter(torch.zeros(1, length, width))
            layer = nn.TransformerEncoderLayer(
                width, nhead=4, dim_feedforward=64, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
            )
            self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(width)
            self.out = nn.Linear(width, vocab)

        def forward(self, tokens):
            n = tokens.shape[1]
            mask = nn.Transformer.generate_square_subsequent_mask(n)
            h = self.tok(tokens) * math.sqrt(width) + self.pos[:, :n]
            h = self.encoder(h, mask=mask, is_causal=True)
            return self.out(self.norm(h))

    model = TinyLM()
    init(model)

    # Sequences that count upwards modulo the vocabulary from a random start.
    rng = np.random.default_rng(2)
    starts = rng.integers(0, vocab, (steps, 8, 1))
    seqs = (starts + np.arange(length + 1)) % vocab

    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or name == "pos" else decay).append(p)
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=3e-3, betas=(0.9, 0.98)
    )
    warmup = 5

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    losses = []
    model.train()
    for seq in seqs:
        seq = torch.tensor(seq)
        x, y = seq[:, :-1], seq[:, 1:]
        logits = model(x)
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses
