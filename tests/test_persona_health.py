"""One's health, read without an LLM (engine/memory/persona_health.py): conditions one has,
not drinking, fears."""

import pytest

from tests.helpers import entries


@pytest.mark.parametrize(
    ("said", "condition"),
    [
        ("I have asthma.", "asthma"),
        ("I've got type 2 diabetes.", "type 2 diabetes"),
        ("I was diagnosed with ADHD last year.", "ADHD"),
        ("I suffer from migraines.", "migraines"),
        ("I have a bad back, so no heavy lifting.", "bad back"),
        ("I live with Crohn's disease.", "Crohn's disease"),
        ("I have high blood pressure and take pills for it.", "high blood pressure"),
        ("I'm coeliac.", "coeliac"),
        # not one's own now
        ("My son has asthma.", None),
        ("I had asthma as a kid.", None),
        ("I have a bad feeling about this.", None),
        ("Do I have diabetes?", None),
    ],
)
def test_a_condition_one_has_is_a_health_entry(said, condition):
    found = [e for e in entries(said) if e[0] == "health"]
    assert found == ([("health", condition, condition)] if condition else [])


@pytest.mark.parametrize(
    ("said", "entry"),
    [
        ("I don't drink alcohol.", "doesn't drink alcohol"),
        ("I don't drink.", "doesn't drink alcohol"),
        ("I'm teetotal.", "doesn't drink alcohol"),
        ("I've been sober for two years.", "doesn't drink alcohol"),
        ("I gave up drinking last year.", "doesn't drink alcohol"),
        ("I'm afraid of spiders.", "afraid of spiders"),
        ("I'm scared of flying.", "scared of flying"),
        ("I'm terrified of the dark.", "terrified of the dark"),
        ("I have a fear of heights.", "fear of heights"),
        ("I'm really scared of big dogs, since I was bitten.", "scared of big dogs"),
        # neither
        ("I don't drink coffee.", None),
        ("I don't drink much.", None),
        ("I'm afraid of missing the train.", None),
        ("I'm scared of what she'll say.", None),
        ("I'm afraid of that.", None),
        ("I'm afraid I can't come.", None),
        ("My son is scared of dogs.", None),
        ("I'm scared of failing.", None),
    ],
)
def test_not_drinking_and_fears_are_read(said, entry):
    found = [e[2] for e in entries(said) if e[0] == "health"]
    assert found == ([entry] if entry else [])
