"""The course key and the student ids: how they may be shown, and the placeholders shipped.

Secrets are never printed in full: ``mask_secret`` keeps the first two characters and the
length, ``redact`` masks every secret inside a text from outside (a server's reply) before it
is printed or stored.  ``require_credentials`` stops a run before anything is sent to a server
while the repository's placeholders are still in place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from settings.errors import ConfigError

if TYPE_CHECKING:
    from settings.schema import ServerSettings

API_KEY_ENV = "EDAP01_API_KEY"
STIL_IDS_ENV = "EDAP01_STIL_IDS"
PLACEHOLDER_PREFIX = "your-"


def mask_secret(secret: str) -> str:
    """A secret as it may appear in output: its first two characters and its length."""
    if len(secret) <= 2:
        return "*" * len(secret)
    return f"{secret[:2]}{'*' * (len(secret) - 2)}"


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret masked by ``mask_secret``.

    Longer secrets first, so an id that contains another is masked whole.  A secret of one or
    two characters is masked only where it stands alone (not inside a longer word), or every
    such letter of the message would be starred.
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        if len(secret) >= 3:
            text = text.replace(secret, mask_secret(secret))
        else:
            alone = rf"(?<![\w-]){re.escape(secret)}(?![\w-])"
            text = re.sub(alone, mask_secret(secret), text)
    return text


def is_placeholder(value: str) -> bool:
    """True for the placeholder values the repository ships in ``config.toml``."""
    return value.startswith(PLACEHOLDER_PREFIX)


def require_credentials(server: ServerSettings, source: str = "config.toml",
                        env: Mapping[str, str] | None = None) -> None:
    """Raise ``ConfigError`` if the key or an id is still the placeholder the repository ships,
    or if ``EDAP01_API_KEY`` or ``EDAP01_STIL_IDS`` is set but blank (``env``: the environment).

    Called before anything is sent to a server that records games under our ids.
    """
    env = os.environ if env is None else env
    # A blank variable overrides nothing (``load_settings``), but it was set to be used: say so
    # rather than blame the config file (``EDAP01_API_KEY=$KEY`` with KEY unset, say).
    if API_KEY_ENV in env and not env[API_KEY_ENV].strip():
        raise ConfigError(f"{API_KEY_ENV} is set but empty; set it to the course's key, or unset"
                          f" it to use server.api_key in {source}")
    if STIL_IDS_ENV in env and not env[STIL_IDS_ENV].replace(",", " ").strip():
        raise ConfigError(f"{STIL_IDS_ENV} is set but holds no id; set it to your STIL id(s),"
                          f" comma-separated, or unset it to use server.stil_ids in {source}")
    if is_placeholder(server.api_key):
        raise ConfigError(
            f"{source}: server.api_key is still the placeholder; set it to the course's key"
            f" (or set {API_KEY_ENV})"
        )
    for index, stil_id in enumerate(server.stil_ids):
        if is_placeholder(stil_id):
            raise ConfigError(
                f"{source}: server.stil_ids[{index}] is still the placeholder; put your STIL"
                f" id(s) there (or set {STIL_IDS_ENV}, comma-separated)"
            )
