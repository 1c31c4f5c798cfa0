"""The config loader: typed values, errors naming file and key, environment overrides, secrets."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from settings import (
    ConfigError,
    LocalServerSettings,
    ServerSettings,
    Settings,
    check_server_url,
    config_relative,
    default_config_path,
    load_settings,
    mask_secret,
    redact,
    require_credentials,
    revised,
)

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_the_shipped_config_loads_and_holds_only_placeholders():
    settings = load_settings(ROOT / "config.toml", env={})
    assert settings.server.url == "https://vilde.cs.lth.se/edap01-4inarow/"
    with pytest.raises(ConfigError, match="api_key is still the placeholder"):
        require_credentials(settings.server)


def test_values_are_typed_and_an_int_is_accepted_for_a_float(tmp_path):
    path = write(tmp_path, '[server]\nread_timeout = 7\nstil_ids = ["ab-1", "cd_2"]\n'
                           '[agent]\nseconds_per_move = 2\n[record]\npath = "x.sqlite3"\n')
    settings = load_settings(path, env={})
    assert settings.server.read_timeout == 7.0 and isinstance(settings.server.read_timeout, float)
    assert settings.server.stil_ids == ("ab-1", "cd_2")
    assert settings.agent.seconds_per_move == 2.0
    assert settings.record.path == "x.sqlite3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[server]\ntimeout = 3\n", r"server.timeout: unknown key \(known: api_key, connect"),
        ("[serverr]\n", r"serverr: unknown key \(known: agent, board, local_server, outside, record"),
        ('[server]\nread_timeout = "5"\n', r"server.read_timeout: expected a number, got '5'"),
        ("[server]\nretries = 2.5\n", r"server.retries: expected a whole number, got 2.5"),
        ('[server]\nstil_ids = "ab"\n', r"server.stil_ids: expected a list$"),
        ("[server]\nstil_ids = [1]\n", r"server.stil_ids\[0\]: expected text in quotes$"),
        ("[agent]\nuse_book = false\n",
         r'agent: use_book and use_solver are replaced by mode: "course" \(the heuristic search'),
        ('[agent]\nmode = "fast"\n', r"agent.mode: must be one of 'course', 'strongest'"),
        ("[server]\nurl = \"ftp://x/\"\n", r"server.url: 'ftp://x/' is not an http"),
        ("[server]\nread_timeout = 0\n", r"server.read_timeout: must be more than 0, got 0"),
        ("[server]\nstil_ids = []\n", r"server.stil_ids: must not be empty$"),
        ("[agent]\nsafety_margin = -1\n", r"agent.safety_margin: must be at least 0.25"),
        ("[agent]\nsafety_margin = 0\n", r"agent.safety_margin: must be at least 0.25, got 0"),
        ("[agent]\nsafety_margin = 5\n", r"agent.safety_margin: must be less than 5 seconds, the"
         r" course server's limit per move \(no time would be left to think\), got 5$"),
        ("[agent]\nsafety_margin = 7.5\n", r"agent.safety_margin: must be less than 5 .* got 7.5$"),
        ("[agent]\nseconds_per_move = -1\n", r"agent.seconds_per_move: must be more than 0"),
        ('[record]\npath = ""\n', r"record.path: must not be empty"),
        ('[record]\npath = "  "\n', r"record.path: must not be empty"),
        ("[agent]\nmin_depth = 50\n", r"agent.min_depth: must be at most 12, got 50"),
        ('[server]\nurl = "http://127.0.0.1:99999/"\n', r"server.url: .* Port out of range"),
        ('[server]\nurl = "http://[::1/"\n', r"server.url: .* not a valid URL"),
        ('[local_server]\nbot = "alphazero"\n',
         r"local_server.bot: must be one of 'minimax', 'random', got 'alphazero'"),
        ("[local_server]\nbot_depth = 0\n", r"local_server.bot_depth: must be at least 1, got 0"),
        ("[local_server]\nport = 70000\n", r"local_server.port: must be at most 65535"),
        ('[local_server]\nfirst = "me"\n', r"local_server.first: must be one of 'student'"),
        ("[local_server]\ntime_limit = -1\n", r"local_server.time_limit: must be at least 0"),
        ("[local_server]\ntime_limit = nan\n", r"local_server.time_limit: must be a finite number"),
        ('[local_server]\napi_key = ""\n', r"local_server.api_key: must not be empty"),
        ('[local_server]\nhost = ""\n', r"local_server.host: must not be empty"),
        ('[server]\napi_key = 5\n', r"server.api_key: expected text in quotes$"),
        ("[server\n", r"not valid TOML"),
    ],
)
def test_a_bad_value_names_the_file_and_the_key(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(path, env={})
    assert str(info.value).startswith(str(path))


def test_every_problem_of_a_file_is_reported_at_once(tmp_path):
    path = write(tmp_path, '[server]\nread_timeout = "5"\n[agent]\nmin_depth = 0\nfoo = 1\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    lines = str(info.value).splitlines()
    assert lines[0] == f"{path}: 3 problems:"
    assert lines[1:] == ["  server.read_timeout: expected a number, got '5'",
                         "  agent.min_depth: must be at least 1, got 0",
                         "  agent.foo: unknown key (known: heuristic, min_depth, mode,"
                         " safety_margin, seconds_per_move, table_bits)"]


def test_a_removed_key_is_one_problem_among_the_sections_others(tmp_path):
    path = write(tmp_path, '[agent]\nuse_book = true\nuse_solver = false\nmin_depth = 0\n'
                           'mode = "fast"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    lines = str(info.value).splitlines()
    assert lines[0] == f"{path}: 3 problems:"
    assert set(lines[1:]) == {
        '  agent: use_book and use_solver are replaced by mode: "course" (the heuristic search'
        ' alone) or "strongest" (book, solver, search)',
        "  agent.min_depth: must be at least 1, got 0",
        "  agent.mode: must be one of 'course', 'strongest', got 'fast'"}


def test_the_checks_of_other_packages_are_reported_with_the_schemas_problems(tmp_path):
    def heuristic_known(settings):
        name = settings.agent.heuristic
        return [] if name == "windows5000" else [f"agent.heuristic: unknown heuristic {name!r}"]

    def seen(settings):
        looked.append(settings)
        return []

    looked: list[Settings] = []
    path = write(tmp_path, '[agent]\nmin_depth = 0\nheuristic = "magic"\n[record]\npath = 5\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={}, checks=[heuristic_known, seen])
    assert str(info.value).splitlines() == [
        f"{path}: 3 problems:", "  agent.min_depth: must be at least 1, got 0",
        "  record.path: expected text in quotes, got 5",
        "  agent.heuristic: unknown heuristic 'magic'"]
    # The checks saw every value the schema took, the refused ones at their defaults.
    assert looked[0].agent.min_depth == 5 and looked[0].record.path == "records/games.sqlite3"
    path = write(tmp_path, '[agent]\nheuristic = "windows5000"\n')
    assert load_settings(path, env={}, checks=[heuristic_known]).agent.heuristic == "windows5000"


def test_a_secret_value_is_never_quoted_in_an_error(tmp_path):
    path = write(tmp_path, '[server]\nstil_ids = ["ok", 123456]\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    assert "123456" not in str(info.value)


def test_a_changed_copy_is_checked_and_names_the_flag():
    settings = LocalServerSettings()
    assert revised(settings, {"port": 0}).port == 0
    with pytest.raises(ConfigError, match=r"^--bot-depth: must be at most 12, got 13$"):
        revised(settings, {"bot_depth": 13}, names={"bot_depth": "--bot-depth"})


def test_a_missing_file_named_explicitly_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_settings(tmp_path / "nope.toml", env={})


def test_environment_overrides_key_and_ids(tmp_path):
    path = write(tmp_path, '[server]\napi_key = "from-file"\nstil_ids = ["file-id"]\n')
    env = {"EDAP01_API_KEY": "from-env", "EDAP01_STIL_IDS": " ab-1 , cd_2 ,"}
    server = load_settings(path, env=env).server
    assert server.api_key == "from-env"
    assert server.stil_ids == ("ab-1", "cd_2")
    require_credentials(server)  # real values now: no error
    assert load_settings(path, env={}).server.api_key == "from-file"


def test_an_empty_id_list_from_the_environment_names_the_variable(tmp_path):
    with pytest.raises(ConfigError, match=r"environment: EDAP01_STIL_IDS: must not be empty"):
        load_settings(write(tmp_path, ""), env={"EDAP01_STIL_IDS": " , "})


@pytest.mark.parametrize(("name", "value", "message"), [
    ("EDAP01_API_KEY", "", r"^EDAP01_API_KEY is set but empty; .* server.api_key in c.toml$"),
    ("EDAP01_API_KEY", "  ", r"^EDAP01_API_KEY is set but empty"),
    ("EDAP01_STIL_IDS", "", r"^EDAP01_STIL_IDS is set but holds no id; .* server.stil_ids in"),
])
def test_a_blank_environment_variable_is_named_not_the_config(tmp_path, name, value, message):
    path = write(tmp_path, "")  # the shipped placeholders: the config is not to blame
    server = load_settings(path, env={name: value}).server
    with pytest.raises(ConfigError, match=message) as info:
        require_credentials(server, "c.toml", env={name: value})
    assert "placeholder" not in str(info.value)


def test_a_placeholder_id_is_refused_before_playing():
    server = ServerSettings(stil_ids=("ab-1", "your-stil-id"), api_key="secret-key")
    with pytest.raises(ConfigError, match=r"stil_ids\[1\] is still the placeholder"):
        require_credentials(server)


def test_secrets_stay_out_of_the_repr_and_are_masked():
    server = ServerSettings(stil_ids=("ab-1234",), api_key="secret-key")
    text = repr(server)
    assert "secret-key" not in text and "ab-1234" not in text
    assert mask_secret("secret-key") == "se********"
    assert mask_secret("ab") == "**"


def test_the_url_gets_a_trailing_slash():
    assert ServerSettings(url="http://127.0.0.1:8000/x").url == "http://127.0.0.1:8000/x/"


@pytest.mark.parametrize("spelling", [
    "https://vilde.cs.lth.se/edap01-4inarow/", "https://VILDE.cs.lth.se/edap01-4inarow",
    "HTTPS://vilde.cs.lth.se:443/edap01-4inarow/", " https://vilde.cs.lth.se/edap01-4inarow/ "])
def test_one_server_has_one_url_however_it_is_spelled(spelling):
    # The record keys its games by the URL: a running game must be found under any spelling.
    assert check_server_url(spelling) == "https://vilde.cs.lth.se/edap01-4inarow/"
    assert check_server_url("http://Local:80/a") == "http://local/a/"
    assert check_server_url("http://127.0.0.1:443/") == "http://127.0.0.1:443/"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1:99999/", "Port out of range"),
        ("http://127.0.0.1:abc/", "could not be cast to integer"),
        ("http://127.0.0.1:0/", "port 0"),
        ("http://[::1/", "Invalid IPv6 URL"),
        ("http://:8000/", "with a host"),
        ("ftp://host/", "not an http"),
        ("http://host/?x=1", "query"),
    ],
)
def test_a_bad_server_url_is_refused_with_the_reason(url, message):
    # Not requests' InvalidURL later on, which the client could take for a lost reply.
    with pytest.raises(ValueError, match=message):
        check_server_url(url)
    assert check_server_url("http://[::1]:8000") == "http://[::1]:8000/"


def test_the_settings_are_checked_when_built():
    assert LocalServerSettings(port=0, time_limit=0, bot="random").port == 0
    with pytest.raises(ValidationError):
        LocalServerSettings(bot_depth=13)
    with pytest.raises(ValidationError):
        LocalServerSettings(time_limit=float("inf"))
    with pytest.raises(ValidationError):  # frozen
        LocalServerSettings().port = 1


def test_redact_masks_every_secret_wherever_it_stands():
    text = 'stil_id "ab-1234" and "ab-1234+cd-5678", key=course-key, short x in "x"'
    masked = redact(text, ["ab-1234", "cd-5678", "course-key", "x"])
    assert masked == 'stil_id "ab*****" and "ab*****+cd*****", key=co********, short * in "*"'
    assert "ab-1234" not in masked and "course-key" not in masked
    assert redact("nothing here", ["secret"]) == "nothing here"


def test_config_paths_are_relative_to_the_config_file(tmp_path):
    config = tmp_path / "sub" / "config.toml"
    assert config_relative("db/x.sqlite3", config) == tmp_path / "sub" / "db" / "x.sqlite3"
    assert config_relative(str(tmp_path / "abs"), config) == tmp_path / "abs"
    assert config_relative("x", None) == default_config_path().absolute().parent / "x"


def test_the_default_settings_file_is_the_environments_else_the_checkouts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from settings import loading

    monkeypatch.delenv("EDAP01_CONFIG", raising=False)
    monkeypatch.setattr(loading, "_checkout", tmp_path)
    assert default_config_path() == tmp_path / "config.toml"
    assert load_settings().agent.seconds_per_move == 3.0  # no file there: the defaults
    named = write(tmp_path, "[agent]\nseconds_per_move = 0.5\n")
    monkeypatch.setenv("EDAP01_CONFIG", str(named))
    assert default_config_path() == named and load_settings().agent.seconds_per_move == 0.5
    monkeypatch.setenv("EDAP01_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match=r"missing\.toml: no such config file"):
        load_settings()
