import pytest

from groove.config import Config, load_config, parse_config
from groove.errors import ConfigError


def test_defaults_match_the_spec():
    c = Config()
    f = c.search.fusion
    assert (f.rrf_k, f.heading_weight, f.context_weight, f.content_weight) == (60.0, 2.0, 1.0, 1.0)
    assert (c.search.mmr.enabled, c.search.mmr.lambda_, c.search.mmr.same_doc_penalty) == (False, 0.7, 0.0)
    pr = c.search.parent_retriever
    assert (pr.enabled, pr.whole_doc_threshold_tokens, pr.max_expanded_tokens) == (False, 100, 2000)
    assert c.watch.debounce_ms == 500


def test_toml_values_are_read_and_ints_accepted_for_floats():
    c = parse_config("[search.fusion]\nrrf_k = 30\nheading_weight = 3.5\n[search.mmr]\nlambda = 0.5\n")
    assert c.search.fusion.rrf_k == 30.0 and c.search.fusion.heading_weight == 3.5
    assert c.search.mmr.lambda_ == 0.5


def test_unknown_keys_warn_naming_the_key():
    c = parse_config("[search.fusion]\nrrf_kk = 1\n[nope]\nx = 1\n")
    assert any("search.fusion.rrf_kk" in w for w in c.warnings)
    assert any("'nope'" in w for w in c.warnings)


@pytest.mark.parametrize(
    "toml, key, expected",
    [
        ('[search.fusion]\nrrf_k = "60"', "search.fusion.rrf_k", "a number"),
        ("[search.mmr]\nenabled = 1", "search.mmr.enabled", "a boolean"),
        ("[search]\nlimit = 2.5", "search.limit", "an integer"),
        ("[search.mmr]\nlambda = 1.5", "search.mmr.lambda", "between 0 and 1"),
        ("[search.parent_retriever]\nwhole_doc_threshold_tokens = -1", "whole_doc_threshold_tokens", ">= 0"),
        ("[search]\nfusion = 3", "search.fusion", "table"),
    ],
)
def test_wrong_types_and_ranges_fail_naming_the_key_and_the_expectation(toml, key, expected):
    with pytest.raises(ConfigError) as e:
        parse_config(toml)
    assert key in str(e.value) and expected in str(e.value)


def test_mmr_on_with_lambda_one_warns_about_the_footgun():
    c = parse_config("[search.mmr]\nenabled = true\nlambda = 1.0\n")
    assert any("lambda = 1.0" in w for w in c.warnings)


def test_vault_file_wins_over_user_config(tmp_path, groove_home):
    vault = tmp_path / "v"
    vault.mkdir()
    (groove_home / "config").mkdir(exist_ok=True)
    (groove_home / "config" / "groove.toml").write_text("[search]\nlimit = 7\n")
    assert load_config(vault).search.limit == 7
    (vault / "groove.toml").write_text("[search]\nlimit = 3\n")
    assert load_config(vault).search.limit == 3


def test_invalid_toml_is_a_config_error():
    with pytest.raises(ConfigError, match="not valid TOML"):
        parse_config("[search\n")
