"""docs/benchmarks.md renders every profile's contents from harness/profiles.py: the page
and the code cannot drift apart, and every key a profile sets is described."""

from harness import profiles


def test_the_page_holds_every_profile_as_the_code_has_it():
    page = profiles.PAGE.read_text()
    assert profiles.rendered(page) == page, (
        "docs/benchmarks.md's profiles table differs from harness/profiles.py: "
        "run `python -m harness.profiles --write`")
    assert profiles.markdown() in page


def test_every_key_a_profile_sets_is_described_once():
    used = {key for profile in profiles.PROFILES.values() for key in profile}
    assert used == set(profiles.KEYS)


def test_rendering_needs_the_markers():
    import pytest
    with pytest.raises(ValueError, match="profiles:begin"):
        profiles.rendered("no table here")
