"""What the oneflow-distributed package adds to the core, for the core to import on first use.

The core never names this package: on first need (``oneflow.env``, ``oneflow.nn.parallel``, a
``placement=`` argument) it reads the modules of the ``oneflow._entry_points`` namespace (see
``oneflow._plugin``) and imports what they declare; the imported modules register their hooks.
"""

# hook name -> the module that registers it when imported
HOOKS = {
    "global_tensor": "oneflow.distributed.global_tensor",
    "global_checkpoint": "oneflow.distributed.global_checkpoint",
    "global_one_embedding": "oneflow.distributed.global_one_embedding",
}

# core module -> {attribute: (module to import, attribute of it, or None for the module itself)}
ATTRIBUTES = {
    "oneflow": {
        "placement": ("oneflow.distributed.placement", "placement"),
        "sbp": ("oneflow.distributed.sbp", None),
        "env": ("oneflow.distributed.env", None),
        "comm": ("oneflow.distributed.comm", None),
        "boxing": ("oneflow.distributed.boxing", None),
        "distributed": ("oneflow.distributed", None),
    },
    "oneflow.nn": {
        "parallel": ("oneflow.nn.parallel", None),
    },
}
