"""Optuna's own sampler test suite (`optuna.testing.pytest_samplers`) over every strategy of our registry, as
Optuna runs it over its own samplers: it checks the sampler contract that our own suite (test_samplers.py) may not."""

import pytest
from optuna.testing.pytest_samplers import BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase

from tuner.samplers import AllocationSampler
from tuner.strategies import REGISTRY

pytestmark = pytest.mark.slow  # hundreds of small studies: the full run's, not the quick subset's

SIZED = {"lsi": {"budget": 100}, "ea": {"population": 10, "elite": 5}}  # settings sized for the suite's studies


class TestEveryStrategyAsAnOptunaSampler(BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase):
    @pytest.fixture(params=list(REGISTRY))
    def sampler(self, request):
        name = request.param
        return lambda: AllocationSampler(name, seed=0, **SIZED.get(name, {}))
