"""An LSTM sequence classifier with an embedding, Adam and gradient clipping by norm."""

import numpy as np


def run(torch, steps=20, init=lambda model: None):
    """Trains ``steps`` mini-batches and returns each step's loss."""
    nn = torch.nn
    torch.manual_seed(0)

    class Classifier(nn.Module):
        def __init__(self, vocab=12, embed=16, hidden=24, classes=3):
            super().__init__()
            self.embed = nn.Embedding(vocab, embed, padding_idx=0)
            self.lstm = nn.LSTM(embed, hidden, num_layers=2, batch_first=True)
            self.gru = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
            self.head = nn.Linear(2 * hidden, classes)

        def forward(self, tokens):
            out, (h, c) = self.lstm(self.embed(tokens))
            out, h = self.gru(out)
            # h is (directions, batch, hidden): the last state of each direction.
            return self.head(torch.cat([h[0], h[1]], dim=1))

    model = Classifier()
    init(model)

    # The class says which of the tokens 1-3 occurs most often.
    rng = np.random.default_rng(1)
    tokens = rng.integers(1, 12, (steps, 16, 10))
    labels = np.stack([[np.argmax([(row == k).sum() for k in (1, 2, 3)]) for row in batch] for batch in tokens])

    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for x, y in zip(tokens, labels):
        x, y = torch.tensor(x), torch.tensor(y)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        losses.append(loss.item())
    return losses
