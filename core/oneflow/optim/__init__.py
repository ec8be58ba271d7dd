"""``oneflow.optim``: optimization algorithms and learning-rate schedulers.

The optimizers follow ``torch.optim`` (same hyper-parameters, updates, state
names and ``state_dict`` layout); :class:`LAMB` is OneFlow's own. Schedulers live
in :mod:`oneflow.optim.lr_scheduler`.
"""

from oneflow.optim import lr_scheduler, swa_utils
from oneflow.optim._stateless import swap_in_optimizer_params_and_state
from oneflow.optim.adadelta import Adadelta
from oneflow.optim.adafactor import Adafactor
from oneflow.optim.adagrad import Adagrad
from oneflow.optim.adam import Adam
from oneflow.optim.adamax import Adamax
from oneflow.optim.adamw import AdamW
from oneflow.optim.asgd import ASGD
from oneflow.optim.lamb import LAMB
from oneflow.optim.lbfgs import LBFGS
from oneflow.optim.muon import Muon
from oneflow.optim.nadam import NAdam
from oneflow.optim.optimizer import Optimizer
from oneflow.optim.radam import RAdam
from oneflow.optim.rmsprop import RMSprop
from oneflow.optim.rprop import Rprop
from oneflow.optim.sgd import SGD
from oneflow.optim.sparse_adam import SparseAdam

__all__ = [
    "ASGD",
    "LAMB",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SparseAdam",
    "lr_scheduler",
    "swa_utils",
    "swap_in_optimizer_params_and_state",
]
