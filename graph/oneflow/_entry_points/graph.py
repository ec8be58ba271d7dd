"""What the oneflow-graph package adds to the core (see ``oneflow._plugin``): ``oneflow.nn.Graph``."""

HOOKS: dict = {}

ATTRIBUTES = {
    "oneflow.nn": {
        "Graph": ("oneflow.nn.graph", "Graph"),
    },
}
