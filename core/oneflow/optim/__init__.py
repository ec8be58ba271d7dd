"""``oneflow.optim``: optimization algorithms and learning-rate schedulers.

The optimizers follow ``torch.optim`` (same hyper-parameters, updates, state
names and ``state_dict`` layout); :class:`LAMB` is OneFlow's own. Schedulers live
in :mod:`oneflow.optim.lr_scheduler`.
"""

from oneflow.optim import lr_scheduler
from oneflow.optim.adadelta import Adadelta
from oneflow.optim.adagrad import Adagrad
from oneflow.optim.adam import Adam
from oneflow.optim.adamax import Adamax
from oneflow.optim.adamw import AdamW
from oneflow.optim.lamb import LAMB
from oneflow.optim.nadam import NAdam
from oneflow.optim.optimizer import Optimizer
from oneflow.optim.rmsprop import RMSprop
from oneflow.optim.sgd import SGD

__all__ = [
    "LAMB",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RMSprop",
    "lr_scheduler",
]
