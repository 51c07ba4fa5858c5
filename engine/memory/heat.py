"""Segment heat H = α·N_visit + β·L_interaction + γ·exp(-Δt/μ), computed when read."""

from __future__ import annotations

import math

from engine.records import HeatParts
from engine.settings import MemorySettings


def heat(
    visits: int, length: int, last_access: float, now: float, settings: MemorySettings
) -> HeatParts:
    elapsed = max(0.0, now - last_access)
    recency = math.exp(-elapsed / settings.heat_mu_seconds)
    value = (
        settings.heat_alpha * visits + settings.heat_beta * length + settings.heat_gamma * recency
    )
    return HeatParts(visits=visits, length=length, recency=recency, heat=value)
