"""How long a server takes to start and a benchmark point takes to run, as declared.

The model and its coefficients are documented in docs/planning.md; the numbers come
from `estimates:` in the benchmark catalog.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Config
    from generator.catalog.server_types import Estimates, PointModel


def shown(minutes: float) -> int:
    """An estimate as shown: whole minutes, rounded up."""
    return math.ceil(minutes - 1e-9)


def startup_minutes(estimates: Estimates, config: Config) -> float:
    """The config's own value, else its model's, else the rule for the model's size."""
    if config.startup_minutes is not None:
        return config.startup_minutes
    if config.model.startup_minutes is not None:
        return config.model.startup_minutes
    size = config.model.params_b
    for rule in estimates.startup:
        if rule.up_to_params_b is None or (size is not None and size <= rule.up_to_params_b):
            return rule.minutes
    return estimates.startup[-1].minutes


def point_minutes(
    model: PointModel, *, isl: int, osl: int, concurrency: int, requests: int, gpus: int
) -> float:
    """overhead + waves x (prefill + decode): every wave sends `concurrency` requests,
    prefills them at the declared per-GPU token rate and decodes OSL steps whose length
    grows with the batch."""
    waves = math.ceil(requests / concurrency)
    prefill = isl * concurrency / (model.prefill_tokens_per_gpu_second * gpus)
    decode = osl * (model.decode_step_ms + model.decode_step_ms_per_request * concurrency) / 1000
    return model.overhead_minutes + waves * (prefill + decode) / 60
