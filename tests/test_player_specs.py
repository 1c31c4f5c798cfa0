"""The one parser of player specs (``ecosystems.players``): every kind comes from the table of the
package that knows it, and is parsed only there."""

from __future__ import annotations

import pytest

import ecosystems.foreign
import engine.players
import engine.specs
import outside
import outside.specs
from ecosystems.players import SPEC_HELP, SPEC_KINDS, parse_spec, spec_kind, split_specs
from engine.specs import PlayerSpec
from settings import UsageError


def test_each_kind_is_contributed_once_by_the_package_that_knows_it() -> None:
    tables: list[dict[str, object]] = [
        dict(engine.specs.SPEC_KINDS), dict(outside.specs.SPEC_KINDS),
        dict(ecosystems.foreign.SPEC_KINDS)]
    assert sum(len(table) for table in tables) == len(SPEC_KINDS)  # no kind twice
    for table in tables:
        assert all(SPEC_KINDS[kind] is parse for kind, parse in table.items())
    assert set(SPEC_KINDS) == {"ours", "bot", "random", "seed", "human", "connectx", "program",
                               "kaggle", "openspiel"}
    assert all(kind in SPEC_HELP for kind in SPEC_KINDS)
    # No other parser or builder of specs under the one's names.
    for module in (engine.specs, engine.players, outside, outside.specs, ecosystems.foreign):
        assert not {"parse_spec", "build_player", "parse_player", "split_specs"} & set(vars(module))


def test_the_kind_is_read_once_and_its_options_by_its_own_parser() -> None:
    assert spec_kind(" OURS:0.5 ") == "ours" and spec_kind("random") == "random"
    assert parse_spec(" BOT:5 ") == PlayerSpec("bot", depth=5)
    assert parse_spec("ours", seconds=0.25).label == "ours:0.25"
    for spec in ("bot:", "ours: ", "random:3", "connectx:"):
        with pytest.raises(UsageError, match=f"player {spec!r}"):
            parse_spec(spec)
    assert split_specs('ours:0.5, program:"./engine --a,b":0.2,,random') == [
        "ours:0.5", 'program:"./engine --a,b":0.2', "random"]
