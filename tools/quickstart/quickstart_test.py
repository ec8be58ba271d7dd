"""The quickstart runs to the end and shows what it claims."""

import contextlib
import io

import quickstart


def test_quickstart_runs_and_reports_each_error():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        quickstart.main()
    text = out.getvalue()
    assert "after x[:, 1].fill_(0): [[1.0, 0.0, 3.0], [4.0, 0.0, 6.0]]" in text
    assert "from_numpy sees writes to the array: [42.0, 1.0, 2.0, 3.0]" in text
    losses = [float(line.split("loss ")[1].split()[0]) for line in text.splitlines() if "  step " in line]
    assert len(losses) == 4 and losses[-1] < losses[0] * 0.5, losses
    for err in ("ValueError: expected sequence of length 2", "RuntimeError: view(): size",
                "IndexError: Dimension out of range", "RuntimeError: Expected one of cpu, cuda"):
        assert err in text, text
