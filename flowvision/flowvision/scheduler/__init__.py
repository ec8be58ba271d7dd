"""Learning-rate schedulers with timm's semantics: warmup, then cosine, polynomial or tanh decay
with optional restarts. They are stepped explicitly, per epoch (``step(epoch)``) or per
optimizer update (``step_update(num_updates)``), and set the lr of every param group.
"""

from flowvision.scheduler.cosine_lr import CosineLRScheduler
from flowvision.scheduler.poly_lr import PolyLRScheduler
from flowvision.scheduler.scheduler import Scheduler
from flowvision.scheduler.tanh_lr import TanhLRScheduler

__all__ = ["CosineLRScheduler", "PolyLRScheduler", "Scheduler", "TanhLRScheduler"]
