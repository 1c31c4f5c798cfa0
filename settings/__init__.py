"""Typed settings: ``config.toml`` loaded once into frozen models, and the user's errors.

``settings.schema`` holds the models (one per section), ``settings.loading`` reads the file and
the environment's overrides and checks changed copies (``revised``), ``settings.secrets`` masks
the course key and the ids in output, and ``settings.errors`` has the two errors a user can fix
(``UsageError``, ``ConfigError``).  This package imports nothing of the project but
``vocabulary``: whoever needs a setting imports it, and checks what the value means to it where
it uses it; the packages' rules (``Check``) can be passed to ``load_settings`` so that their
problems are reported with the schema's, in one error naming the file.  The models load
pydantic, so they are imported when first asked for (``vocabulary.lazy``).
"""

from typing import TYPE_CHECKING

from settings.errors import ConfigError, UsageError
from settings.secrets import (
    API_KEY_ENV,
    STIL_IDS_ENV,
    is_placeholder,
    mask_secret,
    redact,
    require_credentials,
)
from settings.shipped import CONFIG_ENV, CONFIG_NAME
from vocabulary.lazy import lazy_names

if TYPE_CHECKING:
    from settings.loading import (
        Check,
        config_relative,
        default_config_path,
        load_settings,
        revised,
        use_checkout,
    )
    from settings.schema import (
        MODES,
        AgentSettings,
        AnalysisBoardSettings,
        LocalServerSettings,
        OutsideSettings,
        RecordSettings,
        ServerSettings,
        Settings,
        SolverSettings,
        SpecDefaults,
        check_server_url,
    )

# The models and the reading of the file load pydantic: they are imported when first asked
# for, so that a module needing only the errors (and a command's --help) does not pay for it.
__getattr__ = lazy_names(__name__, {
    "settings.loading": ("Check", "config_relative", "default_config_path", "load_settings",
                         "revised", "use_checkout"),
    "settings.schema": ("MODES", "AgentSettings", "AnalysisBoardSettings", "LocalServerSettings",
                        "OutsideSettings", "RecordSettings", "ServerSettings", "Settings",
                        "SolverSettings", "SpecDefaults", "check_server_url"),
})


__all__ = [
    "API_KEY_ENV",
    "CONFIG_ENV",
    "CONFIG_NAME",
    "MODES",
    "STIL_IDS_ENV",
    "AgentSettings",
    "AnalysisBoardSettings",
    "Check",
    "ConfigError",
    "LocalServerSettings",
    "OutsideSettings",
    "RecordSettings",
    "ServerSettings",
    "Settings",
    "SolverSettings",
    "SpecDefaults",
    "UsageError",
    "check_server_url",
    "config_relative",
    "default_config_path",
    "is_placeholder",
    "load_settings",
    "mask_secret",
    "redact",
    "require_credentials",
    "revised",
    "use_checkout",
]
